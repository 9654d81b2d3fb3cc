# Registers gnosis-host for the current user with Chrome (and its channels; Chromium, Brave and
# Vivaldi read Chrome's key too), Chromium and Edge (and its channels): the same files and registry keys
# as install.cmd and "gnosis-host.exe install". Run it in the folder that holds gnosis-host.exe:
#   powershell -ExecutionPolicy Bypass -File install.ps1 [-Uninstall]
param([switch]$Uninstall)
$ErrorActionPreference = 'Stop'

$Dest = Join-Path $env:LOCALAPPDATA 'Gnosis'
$HostExe = Join-Path $Dest 'gnosis-host.exe'
$Manifest = Join-Path $Dest 'com.gnosis.host.json'
$Keys = @('Software\Google\Chrome', 'Software\Chromium', 'Software\Microsoft\Edge') |
    ForEach-Object { "HKCU:\$_\NativeMessagingHosts\com.gnosis.host" }

if ($Uninstall) {
    Write-Host "Uninstalling gnosis-host from ${Dest}:"
    foreach ($k in $Keys) {
        if (Test-Path $k) { Remove-Item -Path $k -Force; Write-Host "  removed $k" }
    }
    foreach ($f in @($Manifest, $HostExe, (Join-Path $Dest 'install-record.json'))) {
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

# The same text as manifests/com.gnosis.host.json, path JSON-escaped; UTF-8 without BOM.
$JsonPath = $HostExe.Replace('\', '\\').Replace('"', '\"')
$Text = @"
{
  "name": "com.gnosis.host",
  "description": "Gnosis capability host",
  "path": "$JsonPath",
  "type": "stdio",
  "allowed_origins": [
    "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"
  ]
}

"@ -replace "`r`n", "`n"
[System.IO.File]::WriteAllText("$Manifest.new", $Text, (New-Object System.Text.UTF8Encoding $false))
Move-Item -Force "$Manifest.new" $Manifest
Write-Host "  wrote $Manifest"

foreach ($k in $Keys) {
    # PowerShell runs as a 64-bit process on 64-bit Windows; HKCU\Software is not redirected anyway.
    New-Item -Path $k -Force | Out-Null
    Set-Item -Path $k -Value $Manifest
    if ((Get-Item -Path $k).GetValue('') -ne $Manifest) { throw "read back $k failed" }
    Write-Host "  set $k"
}

Write-Host ''
Write-Host 'Next: open chrome://extensions (or edge://extensions), turn on Developer mode, click'
Write-Host '"Load unpacked" and pick the extension folder. If the host does not connect, run:'
Write-Host "  & '$HostExe' doctor"
