"""Every `meridian` command in the README's "Command line" section runs as written and succeeds (the viewer's
`serve` is exercised by the viewer tests instead). Files a command names with -o exist afterwards and are not
empty."""
import pathlib
import re
import shlex
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _commands():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Command line", 1)[1]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines()]
    return [line for line in lines if line.startswith("meridian ")]


def test_readme_commands_run(meridian, tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("output"))
    commands = _commands()
    assert len(commands) >= 8
    ran = 0
    for line in commands:
        args = shlex.split(line)
        if args[1] == "serve":
            continue
        out = subprocess.run([meridian, *args[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, f"{line}: {out.stderr}"
        if "-o" in args:
            target = tmp_path / args[args.index("-o") + 1]
            assert target.exists() and target.stat().st_size > 0, line
        ran += 1
    assert ran == len(commands) - 1
