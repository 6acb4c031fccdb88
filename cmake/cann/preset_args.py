"""preset_args.py <CMakePresets.json> <source dir>: the "default" preset's cacheVariables as -D options,
one per line (for CMake < 3.19, which has no presets)."""
import json
import sys

preset = next(p for p in json.load(open(sys.argv[1]))["configurePresets"] if p["name"] == "default")
for key, entry in preset["cacheVariables"].items():
    value = entry["value"] if isinstance(entry, dict) else entry
    print("-D%s=%s" % (key, str(value).replace("${sourceDir}", sys.argv[2])))
