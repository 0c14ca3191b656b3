#!/usr/bin/env bash
# Installs the Debian packages the build needs, only when something is missing (so a set-up
# machine spends no time here): a C++ toolchain and cmake for the interface package, Python 3.11
# with venv and headers, libusb (open3d's import needs it), and headless Chromium with its WebDriver (the
# operator console's browser tests, test/operator_console).
set -euo pipefail

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
if ! command -v python3.11 >/dev/null; then
  missing+=(python3.11 python3.11-venv python3.11-dev)
else
  python3.11 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3.11-venv)
  python3.11 -c "import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" \
    || missing+=(python3.11-dev)
fi
ldconfig -p | grep -q 'libusb-1.0.so.0' || missing+=(libusb-1.0-0)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing system packages: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
