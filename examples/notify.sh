#!/bin/sh
# Run by `prefs watch ... -- ./examples/notify.sh` once per change (no shell in between).
# PREFS_VALUE is unset when the key was removed.
echo "$(date -u +%FT%TZ) $PREFS_EVENT $PREFS_DOMAIN/$PREFS_KEY = ${PREFS_VALUE:-(removed)}"
