// Benchmark harness driver (issue 6): placeholder until the harness lands.
import Meridian

print("meridian-bench: no cases yet")
