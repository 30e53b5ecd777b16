# Shared by the live scripts that dot-source it (. "$PSScriptRoot\common.ps1"):
# the skip rules (exit 77 off a real, elevated Windows), Check (counts
# failures in $script:failures), Run (etwcap's exit code and output), ZipText
# (a member of a zip as text) and Census (the kernel and CLR rundown event
# types of a trace).
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

# Event types by their identity in `etwcap dump`: kernel events print as
# kernel:<Group><TAB>hook=0x....(grp=G,op=O), by group and opcode (TraceEvent's
# KernelTraceEventParser: Process, Thread and Image DCStart 3, DCEnd 4; Thread CSwitch 36,
# ReadyThread 50; PerfInfo SampledProfile 46; FileIo Create 64; StackWalk Stack 32,
# Reference/Delete by key 37/38 with caching); the CLR rundown provider's
# a669021c-c450-4609-a035-5af59af4df18 as <guid><TAB>id=N ("Method ETW Events":
# MethodDCEndVerbose 144; "Loader ETW Events": ModuleDCEnd 154).
$CensusTypes = [ordered]@{
  "SystemConfig" = "^Config/";         "Process/DCStart" = "^Process/3$"; "Process/DCEnd" = "^Process/4$"
  "Thread/DCStart" = "^Thread/3$";     "Thread/DCEnd" = "^Thread/4$";     "Image/DCStart" = "^Image/3$"
  "Image/DCEnd" = "^Image/4$";         "SampledProfile" = "^PerfInfo/46$"; "CSwitch" = "^Thread/36$"
  "ReadyThread" = "^Thread/50$";       "FileIo/Create" = "^FileIo/64$";  "StackWalk/Stack" = "^StackWalk/32$"
  "StackWalk/KeyReference" = "^StackWalk/37$"; "StackWalk/KeyDelete" = "^StackWalk/38$"
  "MethodDCEndVerbose" = "^ClrRundown/144$"; "ModuleDCEnd" = "^ClrRundown/154$"
}
$CensusPattern = "kernel:(\w+)\s+hook=0x[0-9A-Fa-f]+\(grp=\d+,op=(\d+)\)|a669021c-c450-4609-a035-5af59af4df18\s+id=(\d+)\b"

function Census([string]$path) {
  $counts = @{}
  foreach ($name in $CensusTypes.Keys) { $counts[$name] = 0 }
  foreach ($m in [regex]::Matches((Run @("dump", $path)).Text, $CensusPattern)) {
    $key = if ($m.Groups[3].Success) { "ClrRundown/$($m.Groups[3].Value)" } else { "$($m.Groups[1].Value)/$($m.Groups[2].Value)" }
    foreach ($name in $CensusTypes.Keys) { if ($key -match $CensusTypes[$name]) { $counts[$name]++ } }
  }
  return $counts
}

function CensusLine($counts) {
  return ($CensusTypes.Keys | ForEach-Object { "$_=$($counts[$_])" }) -join " "
}

function ZipText([string]$zipPath, [string]$entry) {
  Add-Type -AssemblyName System.IO.Compression.FileSystem
  $zip = [IO.Compression.ZipFile]::OpenRead($zipPath)
  try {
    $e = $zip.Entries | Where-Object { $_.FullName -eq $entry } | Select-Object -First 1
    if (-not $e) { return "" }
    $reader = New-Object IO.StreamReader($e.Open())
    try { return $reader.ReadToEnd() } finally { $reader.Dispose() }
  } finally { $zip.Dispose() }
}
