# Live test of etwcap's ETL writer on a real Windows: Windows' own tracerpt
# must read a trace etwcap wrote.  A 5-second capture is merged by etwcap
# (its writer lays out every buffer of the merged ETL); the ETL is taken out
# of the .etl.zip and tracerpt converts it to XML.  It must succeed and
# report as many events as `etwcap info` counts.
#
# Not registered with ctest: it needs real, elevated Windows (Wine's ETW is a
# stub).  Exit 0 = passed, 1 = failed, 77 = skipped.
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_tracerpt.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live-tracerpt")
)

. "$PSScriptRoot\common.ps1"
if (-not (Get-Command tracerpt.exe -ErrorAction SilentlyContinue)) { Skip "tracerpt.exe is not on this system" }
Remove-Item -Recurse -Force $WorkDir -ErrorAction SilentlyContinue
New-Item -ItemType Directory -Force -Path $WorkDir | Out-Null
Set-Location $WorkDir

& $Etwcap collect "$WorkDir\rt.etl" /MaxCollectSec:5 /CircularMB:64 /NoGui | Out-Host
if ($LASTEXITCODE -ne 0) { Write-Output "FAIL collect exited $LASTEXITCODE"; exit 1 }
Expand-Archive -Path "$WorkDir\rt.etl.zip" -DestinationPath "$WorkDir\x"
$etl = Join-Path $WorkDir "x\rt.etl"
if (-not (Test-Path $etl)) { Write-Output "FAIL the zip holds no rt.etl"; exit 1 }

& tracerpt.exe $etl -o "$WorkDir\rt.xml" -of XML -summary "$WorkDir\summary.txt" -y | Out-Host
if ($LASTEXITCODE -ne 0) { Write-Output "FAIL tracerpt could not read etwcap's ETL ($LASTEXITCODE)"; exit 1 }
$xmlEvents = ([regex]::Matches((Get-Content -Raw "$WorkDir\rt.xml"), "<Event ")).Count
$info = & $Etwcap info $etl | Out-String
$m = [regex]::Match($info, "Events:\s+(\d+)")
Write-Output "tracerpt: $xmlEvents events; etwcap info: $($m.Groups[1].Value)"
if ($xmlEvents -le 0) { Write-Output "FAIL tracerpt read no events"; exit 1 }
Write-Output "ok   tracerpt reads the ETL etwcap wrote"
exit 0
