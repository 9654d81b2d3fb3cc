# Registers gnosis-host for the current user with Chrome (and its channels; Chromium, Brave and
# Vivaldi read Chrome's key too), Chromium, Edge (and its channels) and Firefox (its own manifest, with
# allowed_extensions): the same files and registry keys as install.cmd and "gnosis-host.exe install". Run it in the folder that holds gnosis-host.exe:
#   powershell -ExecutionPolicy Bypass -File install.ps1 [-Uninstall]
param([switch]$Uninstall)
$ErrorActionPreference = 'Stop'

$Dest = Join-Path $env:LOCALAPPDATA 'Gnosis'
$HostExe = Join-Path $Dest 'gnosis-host.exe'
$Manifest = Join-Path $Dest 'com.gnosis.host.json'
$FirefoxManifest = Join-Path $Dest 'com.gnosis.host.firefox.json'
# Each key (under HKCU) and the manifest it names.
$Keys = [ordered]@{}
foreach ($k in @('Software\Google\Chrome', 'Software\Chromium', 'Software\Microsoft\Edge')) {
    $Keys["HKCU:\$k\NativeMessagingHosts\com.gnosis.host"] = $Manifest
}
$Keys['HKCU:\Software\Mozilla\NativeMessagingHosts\com.gnosis.host'] = $FirefoxManifest

if ($Uninstall) {
    Write-Host "Uninstalling gnosis-host from ${Dest}:"
    foreach ($k in $Keys.Keys) {
        if (Test-Path $k) { Remove-Item -Path $k -Force; Write-Host "  removed $k" }
    }
    foreach ($f in @($Manifest, $FirefoxManifest, $HostExe, (Join-Path $Dest 'install-record.json'))) {
        if (Test-Path $f) { Remove-Item -Path $f -Force; Write-Host "  removed $f" }
    }
    if ((Test-Path $Dest) -and -not (Get-ChildItem $Dest)) { Remove-Item $Dest; Write-Host "  removed $Dest" }
    exit 0
}

$Src = Join-Path $PSScriptRoot 'gnosis-host.exe'
if (-not (Test-Path $Src)) { throw "gnosis-host.exe was not found next to this script ($PSScriptRoot)" }

Write-Host "Installing gnosis-host in ${Dest}:"
New-Item -ItemType Directory -Force -Path $Dest | Out-Null
Copy-Item -Force $Src "$HostExe.new"
Move-Item -Force "$HostExe.new" $HostExe
Write-Host "  copied $Src to $HostExe"

# The same text as manifests/com.gnosis.host.json and com.gnosis.host.firefox.json, path JSON-escaped;
# UTF-8 without BOM.
$JsonPath = $HostExe.Replace('\', '\\').Replace('"', '\"')
function Write-Manifest([string]$Path, [string]$Field, [string]$Entry) {
    $Text = @"
{
  "name": "com.gnosis.host",
  "description": "Gnosis capability host",
  "path": "$JsonPath",
  "type": "stdio",
  "${Field}": [
    "$Entry"
  ]
}

"@ -replace "`r`n", "`n"
    [System.IO.File]::WriteAllText("$Path.new", $Text, (New-Object System.Text.UTF8Encoding $false))
    Move-Item -Force "$Path.new" $Path
    Write-Host "  wrote $Path"
}
Write-Manifest $Manifest 'allowed_origins' 'chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/'
Write-Manifest $FirefoxManifest 'allowed_extensions' 'gnosis@gnosis.dev'

foreach ($k in $Keys.Keys) {
    # PowerShell runs as a 64-bit process on 64-bit Windows; HKCU\Software is not redirected anyway.
    New-Item -Path $k -Force | Out-Null
    Set-Item -Path $k -Value $Keys[$k]
    if ((Get-Item -Path $k).GetValue('') -ne $Keys[$k]) { throw "read back $k failed" }
    Write-Host "  set $k"
}

Write-Host ''
Write-Host 'Next: open chrome://extensions (or edge://extensions), turn on Developer mode, click'
Write-Host '"Load unpacked" and pick the extension folder; in Firefox open about:debugging, click'
Write-Host '"Load Temporary Add-on..." and pick gnosis-<version>-firefox.xpi. If the host does not connect, run:'
Write-Host "  & '$HostExe' doctor"
