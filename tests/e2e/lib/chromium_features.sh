#!/bin/sh
# Starts the Chromium of the tests ($GNOSIS_CHROMIUM_BINARY) with every --disable-features switch
# joined into one, and every --enable-features switch too. Chromium reads only the last of each,
# and Playwright passes its own lists before the harness's and a test's, which would otherwise
# silently turn Playwright's back on. exec keeps the process Playwright started.
disable=
enable=
for arg do
  case $arg in
    --disable-features=*) disable="${disable:+$disable,}${arg#--disable-features=}" ;;
    --enable-features=*) enable="${enable:+$enable,}${arg#--enable-features=}" ;;
  esac
done
for arg do
  shift
  case $arg in
    --disable-features=* | --enable-features=*) ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec "${GNOSIS_CHROMIUM_BINARY:?the harness sets the Chromium to start}" "$@" \
  ${disable:+"--disable-features=$disable"} ${enable:+"--enable-features=$enable"}
