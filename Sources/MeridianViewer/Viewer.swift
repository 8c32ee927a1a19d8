// Placeholder: viewer (issue 5).
import Meridian
