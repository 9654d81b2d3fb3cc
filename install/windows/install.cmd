@echo off
rem Registers gnosis-host for the current user with Chrome (and its channels; Chromium, Brave and
rem Vivaldi read Chrome's key too), Chromium, Edge (and its channels) and Firefox, which reads its own
rem manifest (allowed_extensions instead of allowed_origins). Double-click it, or run it
rem from a terminal, in the folder that holds gnosis-host.exe (the release zip's layout).
rem It writes exactly what "gnosis-host.exe install" writes; no administrator rights needed.
rem Errors are checked with "if errorlevel 1" after each command, which behaves the same on
rem Windows and under Wine's cmd (tests/wine_test.go runs this script there).
rem   install.cmd [/quiet]    /quiet: do not wait for a key press at the end
setlocal EnableExtensions DisableDelayedExpansion

set "SRC=%~dp0gnosis-host.exe"
if not exist "%SRC%" (
  echo gnosis-host.exe was not found next to this script ^(%~dp0^).
  goto fail
)
if "%LOCALAPPDATA%"=="" (
  echo LOCALAPPDATA is not set.
  goto fail
)
set "DEST=%LOCALAPPDATA%\Gnosis"
set "HOST=%DEST%\gnosis-host.exe"
set "MANIFEST=%DEST%\com.gnosis.host.json"
set "FFMANIFEST=%DEST%\com.gnosis.host.firefox.json"
set "JHOST=%HOST:\=\\%"

echo Installing gnosis-host in %DEST%:
if not exist "%DEST%" mkdir "%DEST%"
if not exist "%DEST%" goto fail
copy /y "%SRC%" "%HOST%.new" >nul
if errorlevel 1 goto fail
move /y "%HOST%.new" "%HOST%" >nul
if errorlevel 1 goto fail
echo   copied %SRC% to %HOST%

> "%MANIFEST%.new" echo {
>>"%MANIFEST%.new" echo   "name": "com.gnosis.host",
>>"%MANIFEST%.new" echo   "description": "Gnosis capability host",
>>"%MANIFEST%.new" echo   "path": "%JHOST%",
>>"%MANIFEST%.new" echo   "type": "stdio",
>>"%MANIFEST%.new" echo   "allowed_origins": [
>>"%MANIFEST%.new" echo     "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"
>>"%MANIFEST%.new" echo   ]
>>"%MANIFEST%.new" echo }
if errorlevel 1 goto fail
move /y "%MANIFEST%.new" "%MANIFEST%" >nul
if errorlevel 1 goto fail
echo   wrote %MANIFEST%

> "%FFMANIFEST%.new" echo {
>>"%FFMANIFEST%.new" echo   "name": "com.gnosis.host",
>>"%FFMANIFEST%.new" echo   "description": "Gnosis capability host",
>>"%FFMANIFEST%.new" echo   "path": "%JHOST%",
>>"%FFMANIFEST%.new" echo   "type": "stdio",
>>"%FFMANIFEST%.new" echo   "allowed_extensions": [
>>"%FFMANIFEST%.new" echo     "gnosis@gnosis.dev"
>>"%FFMANIFEST%.new" echo   ]
>>"%FFMANIFEST%.new" echo }
if errorlevel 1 goto fail
move /y "%FFMANIFEST%.new" "%FFMANIFEST%" >nul
if errorlevel 1 goto fail
echo   wrote %FFMANIFEST%

call :register "Software\Google\Chrome" "%MANIFEST%" "Chrome and its channels; Chromium, Brave and Vivaldi read it too"
if errorlevel 1 goto fail
call :register "Software\Chromium" "%MANIFEST%" "Chromium's own key; one of Edge's fallbacks"
if errorlevel 1 goto fail
call :register "Software\Microsoft\Edge" "%MANIFEST%" "Edge and its channels"
if errorlevel 1 goto fail
call :register "Software\Mozilla" "%FFMANIFEST%" "Firefox"
if errorlevel 1 goto fail

echo.
echo Next: open chrome://extensions (or edge://extensions), turn on Developer mode, click
echo "Load unpacked" and pick the extension folder; in Firefox open about:debugging, click "Load
echo Temporary Add-on..." and pick the release's gnosis-...-firefox.xpi. The Gnosis options page should then say the
echo host is connected. If not, run: "%HOST%" doctor
if /i not "%~1"=="/quiet" pause
exit /b 0

:register
rem   :register KEY-UNDER-HKCU MANIFEST NOTE
set "KEY=HKCU\%~1\NativeMessagingHosts\com.gnosis.host"
reg add "%KEY%" /ve /t REG_SZ /d "%~2" /f >nul
if errorlevel 1 exit /b 1
reg query "%KEY%" /ve >nul 2>&1
if errorlevel 1 exit /b 1
echo   set %KEY% (%~3)
exit /b 0

:fail
echo Installation failed.
if /i not "%~1"=="/quiet" pause
exit /b 1
