@echo off
rem Removes what install.cmd (or "gnosis-host.exe install") wrote for the current user:
rem the four registry keys (Chrome, Chromium, Edge, Firefox), the two manifests, the copied
rem gnosis-host.exe and its folder.
rem   uninstall.cmd [/quiet]
setlocal EnableExtensions DisableDelayedExpansion
set "DEST=%LOCALAPPDATA%\Gnosis"
echo Uninstalling gnosis-host from %DEST%:
for %%K in ("Software\Google\Chrome" "Software\Chromium" "Software\Microsoft\Edge" "Software\Mozilla") do call :unregister "%%~K"
for %%F in (com.gnosis.host.json com.gnosis.host.firefox.json gnosis-host.exe install-record.json) do (
  if exist "%DEST%\%%F" (
    del /f /q "%DEST%\%%F"
    echo   removed %DEST%\%%F
  )
)
rmdir "%DEST%" 2>nul
if not exist "%DEST%" echo   removed %DEST%
if /i not "%~1"=="/quiet" pause
exit /b 0

:unregister
set "KEY=HKCU\%~1\NativeMessagingHosts\com.gnosis.host"
reg query "%KEY%" >nul 2>&1
if errorlevel 1 exit /b 0
reg delete "%KEY%" /f >nul
if not errorlevel 1 echo   removed %KEY%
exit /b 0
