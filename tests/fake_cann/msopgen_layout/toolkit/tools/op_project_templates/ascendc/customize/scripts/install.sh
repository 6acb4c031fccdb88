#!/bin/bash
# Fake template installer (tests only): the project's packages must carry their own installer instead.
echo "fake template installer: not the project's installer" >&2
exit 3
