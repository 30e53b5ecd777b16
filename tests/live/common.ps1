# Shared by the live scripts that dot-source it (. "$PSScriptRoot\common.ps1"):
# the skip rules (exit 77 off a real, elevated Windows), Check (counts
# failures in $script:failures) and Run (etwcap's exit code and output).
# $Etwcap and $WorkDir come from the calling script's parameters.

function Skip([string]$why) { Write-Output "SKIP: $why"; exit 77 }

if ($env:OS -ne "Windows_NT") { Skip "not Windows" }
if (Test-Path "HKLM:\Software\Wine") { Skip "Wine: its ETW functions are stubs that record nothing" }
$me = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $me.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
  Skip "not elevated: run from an elevated prompt"
}
$Etwcap = (Resolve-Path $Etwcap).Path
New-Item -ItemType Directory -Force -Path $WorkDir | Out-Null
$failures = 0

function Check([bool]$ok, [string]$what) {
  if ($ok) { Write-Output "ok   $what" } else { Write-Output "FAIL $what"; $script:failures++ }
}

function Run([string[]]$arguments) {
  $out = & $Etwcap @arguments 2>&1 | Out-String
  return @{ Code = $LASTEXITCODE; Text = $out }
}
