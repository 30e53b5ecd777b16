# Live test of a capture on a container host (README, "Containers from the host"): a
# running process-isolated Docker container with a dotnet process, captured from the host.
#   1. the capture manifest's HCS inventory holds the container (its Id is Docker's full
#      ID) with the host PID of its dotnet process, and a letterless volume in volumeMap;
#   2. the report names the container's ETW ID by its HCS name, and puts the dotnet
#      process in that container;
#   3. the container's images (dotnet's coreclr.dll, from \Device\HarddiskVolumeN) carry
#      ImageID and DbgID_RSDS events written from the host, and none is listed unread.
# What these check was checked only against tests/fakes/fake_container_host.c before.
#
# Not registered with ctest. Exit 0 = passed, 1 = failed, 77 = skipped (not real, elevated
# Windows; no Docker; no running process-isolated container with a dotnet process).
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_containers.ps1 -Etwcap build\windows\etwcap.exe [-Container NAME]
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live-containers"),
  [string]$Container = ""
)

. "$PSScriptRoot\common.ps1"
if (-not (Get-Command docker -ErrorAction SilentlyContinue)) { Skip "no docker command" }

# The container: the one named, else the first running process-isolated one with dotnet.
$ids = if ($Container) { @($Container) } else { @(docker ps -q 2>$null) }
$target = $null
foreach ($c in $ids) {
  $isolation = (docker inspect -f "{{.HostConfig.Isolation}}" $c 2>$null | Out-String).Trim()
  $top = (docker top $c 2>$null | Out-String)
  if ($isolation -eq "process" -and $top -match "dotnet") { $target = $c; break }
}
if (-not $target) { Skip "no running process-isolated container with a dotnet process" }
$fullId = (docker inspect -f "{{.Id}}" $target | Out-String).Trim()
$name = (docker inspect -f "{{.Name}}" $target | Out-String).Trim().TrimStart("/")
Write-Output "container $name ($fullId)"

Run @("abort") | Out-Null
$data = Join-Path $WorkDir "containers.etl"
Remove-Item "$data*" -Force -ErrorAction SilentlyContinue
$r = Run @("/EnableEventsInContainers", "/EnableSourceContainerTracking", "collect", $data,
           "/MaxCollectSec:10", "/CircularMB:256")
Check ($r.Code -eq 0) "collect exits 0 ($($r.Code)): $($r.Text)"
Check (Test-Path "$data.zip") "collect wrote $data.zip"
if (-not (Test-Path "$data.zip")) { exit 1 }

# --- 1. the manifest ----------------------------------------------------------------------
$m = ZipText "$data.zip" "etwcap-capture.json" | ConvertFrom-Json
Check ($m.containers.inventory -eq $true) "HCS gave an inventory (why: $($m.containers.why))"
$sys = @($m.containers.atStop.systems) | Where-Object { $_.id -eq $fullId } | Select-Object -First 1
Check ($sys -ne $null) "the inventory holds the container by Docker's ID $fullId"
$pids = if ($sys) { @($sys.processes) } else { @() }
Check ($pids.Count -gt 0) "its host PIDs are listed: $($pids -join ', ')"
Check ($sys -and $sys.isolation -eq "process") "it is process-isolated ($($sys.isolation))"
$letterless = @($m.volumeMap.volumes) | Where-Object { -not $_.mounted }
Check ($letterless.Count -gt 0) "volumeMap has a letterless volume: $(($letterless | ForEach-Object { $_.device }) -join ', ')"
Check (@($m.containerImagesUnread).Count -eq 0) "no container image is listed unread: $(($m.containerImagesUnread | ForEach-Object { $_.path }) -join ', ')"

# --- 2. the report ------------------------------------------------------------------------
$page = Join-Path $WorkDir "containers.html"
$r = Run @("report", "$data.zip", "/Out:$page")
Check ($r.Code -eq 0) "report exits 0 ($($r.Code)): $($r.Text)"
$html = Get-Content -Raw -Path $page
$json = [regex]::Match($html, '<script type="application/json" id="etwcap-report">(.*?)</script>', "Singleline").Groups[1].Value
$doc = $json | ConvertFrom-Json
$named = @($doc.containers) | Where-Object { $_.name -eq $sys.name } | Select-Object -First 1
Check ($named -ne $null) "the report names an ETW container '$($sys.name)': $(($doc.containers | ForEach-Object { "$($_.id)=$($_.name)" }) -join ', ')"
$dotnet = @($doc.processes) | Where-Object { $_.name -match "dotnet" -and $pids -contains $_.pid }
Check ($dotnet.Count -gt 0 -and $named -and ($dotnet | Where-Object { $_.containerId -eq $named.id })) "dotnet (pid $(($dotnet | ForEach-Object { $_.pid }) -join ', ')) is in that container"

# --- 3. image identity from the host ------------------------------------------------------
$images = @($doc.images) | Where-Object { $_.name -match "^\\Device\\HarddiskVolume" -and $_.name -match "coreclr\.dll$" }
Check ($images.Count -gt 0) "coreclr.dll loads from a container volume: $(($images | ForEach-Object { $_.name }) -join ', ')"
Check (($images | Where-Object { $_.withImageId -gt 0 -and $_.withPdbId -gt 0 }).Count -gt 0) "they carry ImageID and DbgID_RSDS events"

Run @("abort") | Out-Null
if ($failures) { Write-Output "$failures check(s) failed"; exit 1 }
Write-Output "all checks passed"
exit 0
