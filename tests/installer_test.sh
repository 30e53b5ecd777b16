#!/bin/sh
# Builds the NSIS installer with cpack, installs it silently under Wine, runs
# the installed etwcap.exe, uninstalls, and checks the folder is gone.
# Usage: installer_test.sh WINDOWS_BUILD_DIR WINE64 WINEPREFIX
set -eu
build=$1 wine=$2
export WINEPREFIX="$3" WINEDEBUG=-all
cd "$build"
cpack -G NSIS >cpack.log 2>&1 || { cat cpack.log; exit 1; }
installer=$(ls -t etwcap-*-win64.exe | head -1)
file "$installer" | grep -q 'PE32+' || { echo "FAIL: $installer is not a 64-bit installer"; exit 1; }
echo "installer: $installer ($(stat -c %s "$installer") bytes, 64-bit)"

# A silent install into a fixed folder (/D must be last, unquoted).
dir='C:\etwcap-installer-test'
unix_dir="$WINEPREFIX/drive_c/etwcap-installer-test"
rm -rf "$unix_dir"
"$wine" "$installer" /S "/D=$dir" </dev/null
[ -f "$unix_dir/bin/etwcap.exe" ] || { echo "FAIL: etwcap.exe was not installed in $unix_dir"; exit 1; }
[ -f "$unix_dir/README.md" ] && [ -f "$unix_dir/LICENSE" ] || { echo "FAIL: README/LICENSE missing"; exit 1; }
out=$("$wine" "$unix_dir/bin/etwcap.exe" version </dev/null)
echo "installed: $out"
echo "$out" | grep -q '^etwcap .*windows' || { echo "FAIL: installed etwcap.exe version printed: $out"; exit 1; }

"$wine" "$unix_dir/Uninstall.exe" /S </dev/null
# The uninstaller copies itself to %TEMP% and finishes asynchronously.
i=0
while [ -e "$unix_dir/bin/etwcap.exe" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
[ ! -e "$unix_dir/bin/etwcap.exe" ] || { echo "FAIL: uninstall left $unix_dir/bin/etwcap.exe"; exit 1; }
echo "1 passed, 0 failed"
