/* /Wpr's user-mode providers: the list PerfView enables in place of its
 * default list and CLR block to mimic WPR's default profile
 * (CommandProcessor.cs SetWPRProviders, docs/perfview-collection.md §9), in its
 * order, with its keywords and levels.  PerfView names them and looks each
 * GUID up among the providers the machine has registered; etwcap carries
 * the GUIDs, read from Windows 10's provider manifests and registered
 * provider list as published in the repnz/etw-providers-docs dumps
 * (Manifests-Win10-*, FullProviderList), so `plan` shows the same list on
 * any OS.  Where Windows 10 and Windows 7 register a name under two GUIDs
 * (Dwm-Core, Dwm-Udwm, Win32k) the Windows 10 one is used.  Five names of
 * Windows 8 components appear in neither dump; they are left out with a
 * note (a machine that has them can add them with /Providers). */
#include "etw/plan/plan_internal.h"

#include "etw/event/guid.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

struct wpr_provider {
  const char *name;
  const char *guid; /* NULL: no GUID known, left out */
  uint64_t keywords;
  uint8_t level;    /* PerfView's default is Informational; 0xFF: every level */
};

static const struct wpr_provider wpr_providers[] = {
  { "Microsoft-Windows-Kernel-Power", "331c3b3a-2005-44c2-ac5e-77220c37d6b4", 0x1000000000004ULL, 0xFF },
  { "Microsoft-Windows-PowerCpl", "b1f90b27-4551-49d6-b2bd-dfc6453762a6", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Kernel-Power", "331c3b3a-2005-44c2-ac5e-77220c37d6b4", 0x1000000000004ULL, 0xFF },
  { "Microsoft-Windows-Kernel-Memory", "d1d93ef7-e1f2-4f45-9943-03d245fe6c00", 0x60ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WLAN-AutoConfig", "9580d7dd-0379-4658-9870-d5be7d52d6de", 0x1000000000200ULL, 0xFF },
  { "Microsoft-Windows-Tethering-Station", "585cab4f-9351-436e-9d99-dc4b41a20de0", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-SleepStudy", "d37687e7-8bf0-4d11-b589-a7abe080756a", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WinINet", "43d1a55c-76d6-4f7e-995c-64c711e5cafe", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-SettingSync", "83d6e83b-900b-48a3-9835-57656b6f6474", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-UIAutomationCore", "820a42d8-38c4-465d-b64e-d7d56ea1d612", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-ntshrui", "676f167f-f72c-446e-a498-eda43319a5e3", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Kernel-PnP", "9c205a39-1250-487d-abd7-e831c6290539", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-NlaSvc", "63b530f8-29c9-4880-a5b4-b8179096e7b8", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Antimalware-Engine", "0a002690-3839-4e3a-b3b6-96d8df868d99", 0xFFFFFFFFFFFFFFFFULL, LEVEL_VERBOSE },
  { "Microsoft-Windows-Diagnosis-MSDE", "a50b09f8-93eb-4396-84c9-dc921259f952", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-MobilityCenter", "91f42016-0b4e-4a4b-9bbb-825d06cbed35", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Diagnosis-WDC", "05921578-2261-42c7-a0d3-26ddbce6c50d", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-AppHost", "98e0765d-8c42-44a3-a57b-760d7f93225a", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-PushNotifications-Platform", "88cd9180-4491-4640-b571-e3bee2527943", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-ErrorReportingConsole", "017247f2-7e96-11dc-8314-0800200c9a66", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-IME-KRTIP", "e013e74b-97f4-4e1c-a120-596e5629ecfe", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-FileHistory-UI", "b447b4e1-7780-11e0-ada3-18a90531a85a", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-RPCSS", "d8975f88-7ddb-4ed0-91bf-3adf48c48e0c", 0xFFFFFFFFFFFFFFFFULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-COMRuntime", "bf406804-6afa-46e7-8a48-6c357e1d6d61", 0x3ULL, 0xFF },
  { "Microsoft-Windows-Network-and-Sharing-Center", "6a502821-ab44-40c8-b32f-37315d9d52e0", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WPDClassInstaller", "ad5162d8-daf0-4a25-88a7-01cbeb33902e", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Search-Core", "49c2c27c-fe2d-40bf-8c4e-c3fb518037e7", 0x1000000000000ULL, 0xFF },
  { "e7ef96be-969f-414f-97d7-3ddb7b558ccc", "e7ef96be-969f-414f-97d7-3ddb7b558ccc", 0x2000ULL, 0xFF },
  { "Microsoft-PerfTrack-MSHTML", "ffdb9886-80f3-4540-aa8b-b85192217ddf", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DiagCpl", "1a396961-5f3c-4c71-8310-44c653c0bf8a", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-stobject", "86133982-63d7-4741-928e-ef1349b80219", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DeviceSetupManager", "fcbb06bb-6a2a-46e3-abaa-246cb4e508b2", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Kernel-BootDiagnostics", "96ac7637-5950-4a30-b8f7-e07e8e5734c1", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Diagnostics-Networking", "36c23e18-0e66-11d9-bbeb-505054503030", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WWAN-CFE", "71c993b8-1e28-4543-9886-fb219b63fdb3", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Immersive-Shell", "315a8872-923e-4ea2-9889-33cd4754bf64", 0x1000000100000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-AppReadiness", "f0be35f8-237b-4814-86b5-ade51192e503", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-PerfTrack-IEFRAME", "b2a40f1f-a05a-4dfd-886a-4c4f18c4334c", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WindowsUpdateClient", "945a8954-c147-4acd-923f-40c45405a658", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-PortableWorkspaces-Creator-Tool", "42d5f8cb-0d2b-4522-8059-c35a37c94a77", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-VAN", "01578f96-c270-4602-ade0-578d9c29fc0c", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Wcmsvc", "67d07935-283a-4791-8f8d-fa9117f3e6f2", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Tethering-Manager", "cc311f1f-623c-4ca4-ba44-a458016555e8", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-NetworkGCW", "be932b00-0f8e-4386-ab89-873f7d0274aa", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Netshell", "af2e340c-0743-4f5a-b2d3-2f7225d215de", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-ThemeUI", "869fb599-80aa-485d-bca7-db18d72b7219", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DxgKrnl", "802ec45a-1e99-4b83-9920-87c98277ba9d", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Diagnosis-AdvancedTaskManager", "178dadaf-7ac4-4593-ab3e-a45fda6d0d55", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-User-ControlPanel", "319122a9-1485-4e48-af35-7db2d93b8ad2", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Documents", "c89b991e-3b48-49b2-80d3-ac000dfc9749", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-PDC", "a6bf0deb-3659-40ad-9f81-e25af62ce3c7", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Shell-AuthUI", "63d2bb1d-e39a-41b8-9a3d-52dd06677588", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "36b6f488-aad7-48c2-afe3-d4ec2c8b46fa", "36b6f488-aad7-48c2-afe3-d4ec2c8b46fa", 0x10000ULL, 0xFF },
  { "Microsoft-Windows-Dwm-Core", "9e9bba3c-2e38-40cb-99f4-9e8281425164", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-ProcessStateManager", "d49918cf-9489-4bf1-9d7b-014d864cf71f", 0x1000000000000ULL, 0xFF },
  { "Microsoft-Windows-DXP", "728b8c72-0f0f-4071-9bcc-27cb3b6dacbe", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WlanConn", "239cfb83-cbb7-4bbc-a02e-9bdb496aa7c2", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-UserPnp", "96f4a050-7e31-453c-88be-9634f4e02139", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-AppXDeployment-Server", "3f471139-acb7-4a01-b7a7-ff5da4ba2d43", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-MediaEngine", "8f2048e0-f260-4f57-a8d1-932376291682", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-HealthCenter", "588c5c5a-ffc5-44a2-9a7f-d5e8dbe6efd7", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Ncasvc", "126ded58-a28d-4113-8e7a-59d7444b2af1", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-HomeGroup-ProviderService", "c9bdb4eb-9287-4c8e-8378-6896f0d1c5ef", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-JScript", "57277741-3638-4a4b-bdba-0ac6e45da56c", 0x1ULL, 0xFF },
  { "Microsoft-Windows-VolumeControl", "07de7879-1c96-41ce-afbd-c659a0e8e643", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-NWiFi", "0bd3506a-9030-4f76-9b88-3e8fe1f7cfb6", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-PrimaryNetworkIcon", "8ce93926-bdae-4409-9155-2fe4799ef4d3", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-NetworkProfile", "fbcfac3f-8459-419f-8e48-1f0b49cdb85e", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { ".NET Common Language Runtime", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", 0x98ULL, LEVEL_VERBOSE },
  { "Microsoft-Windows-IME-TIP", "bdd4b92e-19ef-4497-9c4a-e10e7fd2e227", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-IME-TCTIP", "d5268c02-6f51-436f-983b-74f2efbfaf3a", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-MediaFoundation-MFCaptureEngine", "b8197c10-845f-40ca-82ab-9341e98cfc2b", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DisplaySwitch", "192ede41-9175-4c86-ac02-9d003c9d43ab", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Shell-LockScreenContent", "a3c0d58a-9fe5-4f24-a2ce-e16de8baa0d2", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-LUA", "93c05d69-51a3-485e-877f-1806a8731346", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DateTimeControlPanel", "741fc222-44ed-4ba7-98e3-f405b2d2c4b4", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-TabletPC-InputPanel", "e978f84e-582d-4167-977e-32af52706888", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-TaskScheduler", "de7b24ea-73c8-4a09-985d-5bdadcfa9017", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Help", "de513a55-c345-438b-9a74-e18cac5c5cc5", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Audio", "ae4bd3be-f36f-45b6-8d21-bdd6fb832853", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-MediaFoundation-Performance", "f404b94e-27e0-4384-bfe8-1d8d390b0aa3", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WlanPref", "ca5ba219-c0d4-4efa-9ceb-72aff92672b0", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-UserAccountControl", "2683b597-3cca-410a-97fe-6f7ee3d09b94", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Antimalware-Service", "751ef305-6c6e-4fed-b847-02ef79d26aef", 0xFFFFFFFFFFFFFFFFULL, 0xFF },
  { "Microsoft-Windows-IME-JPTIP", "8c8a69ad-cc89-481f-bbad-fd95b5006256", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WMP", "f3f14ff3-7b80-4868-91d0-d77e497b025e", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Antimalware-AMFilter", "cfeb0608-330e-4410-b00d-56d8da9986e6", 0xFFFFFFFFFFFFFFFFULL, 0xFF },
  { "Microsoft-Windows-WCNWiz", "e8aa5402-26a1-455e-a21b-f240ed62d155", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Graphics-Printing", "e7aa32fb-77d0-477f-987d-7e83df1b7ed0", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WlanDlg", "d4afa0dc-4dd1-40af-afce-cb0d0e6736a7", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Dwm-Udwm", "a2d1c713-093b-43a7-b445-d09370ec9f47", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-ComDlg32", "7f912b92-21ad-496e-b97a-88622a72bc42", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DesktopActivityModerator", "32dd13df-9c0b-4c3b-b854-ee76c050f5f4", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-HotspotAuth", "de095dbe-8667-4168-94c2-48ca61665aca", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-FileManagerApp", NULL, 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Dhcp-Client", "15a7a4f8-0072-4eab-abad-f98a4d666aed", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Sensors", "d8900e18-36cb-4548-966f-13f068d1f78e", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Display", "6ece3302-fee1-4ea9-8b88-086d459ed976", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-UxTheme", "422088e6-cd0c-4f99-bd0b-6985fa290bdf", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-NetworkProvisioning", "93a19ab3-fb2c-46eb-91ef-56b0a318b983", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WWAN-SVC-EVENTS", "3cb40aaa-1145-4fb8-b27b-7e30f0454316", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WiFiDisplay", "712880e9-7813-41a3-8e4c-e4e0c4f6580a", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Proximity-Common", "28058203-d394-4afc-b2a6-2f9155a3bb95", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DxpTaskSyncProvider", "271c5228-c3fe-4e47-831f-48c3652ce5ac", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-NCSI", "314de49f-ce63-4779-ba2b-d616f6963a88", 0x1000000000000ULL, 0xFF },
  { "Microsoft-Antimalware-RTP", "8e92deef-5e17-413b-b927-59b2f06a3cfc", 0xFFFFFFFFFFFFFFFFULL, 0xFF },
  { "Microsoft-Windows-SrumTelemetry", "48d445a8-2f64-4d49-b093-a5774d8dc531", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DeviceUx", "ded165cf-485d-4770-a3e7-9c5f0320e80c", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Antimalware-Protection", "e4b70372-261f-4c54-8fa6-a5a7914d73da", 0xFFFFFFFFFFFFFFFFULL, 0xFF },
  { "Microsoft-Windows-HealthCenterCPL", "959f1fac-7ca8-4ed1-89dc-cdfa7e093cb0", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Speech-UserExperience", "13480a22-d79f-4334-9d32-aa239398ad3c", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-User Profiles Service", "89b1e9f0-5aff-44a6-9b44-0a07a7ce5845", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Networking-Correlation", "83ed54f0-4d48-4e45-b16e-726ffd1fa4af", 0xFFFFFFFFFFFFFFFFULL, 0xFF },
  { "Microsoft-Windows-Store-Client-UI", NULL, 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-XAML", "531a35ab-63ce-4bcf-aa98-f88c7a89e455", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Immersive-Shell-API", "5f0e257f-c224-43e5-9555-2adcb8540a58", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WindowsUIImmersive", "74827cbb-1e0f-45a2-8523-c605866d2f22", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Winlogon", "dbe9b383-7cf3-4331-91cc-a3cb16a3b538", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-UI-Search", "d8965fcf-7397-4e0e-b750-21a4580bd880", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-PrintDialogs", NULL, 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-BootUX", "67d781bd-cbd2-4bd2-ad1f-6152fb891246", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-PowerShell", "a0c1853b-5c40-4b15-8766-3cf1c58f985a", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-SkyDrive-SyncEngine", NULL, 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-WMPNSS-Service", "6a2dc7c1-930a-4fb5-bb44-80b30aebed6c", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Services", "0063715b-eeda-4007-9429-ad526f62696e", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-AltTab", "11a377e3-be1e-4ee7-abda-81c6eda62e71", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-ThemeCPL", "61f044af-9104-4ca5-81ee-cb6c51bb01ab", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Diagnostics-PerfTrack", "030f2f57-abd0-4427-bcf1-3a3587d7dc7d", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-RPC", "6ad52b32-d609-4be9-ae07-ce8dae937e39", 0xFFFFFFFFFFFFFFFFULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-Win32k", "8c416c79-d49b-4f01-a467-e56d3aa8234c", 0x1000000402000ULL, 0xFF },
  { "Microsoft-Windows-Shell-Core", "30336ed4-e327-447c-9de0-51b652c86108", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-BrokerInfrastructure", "e6835967-e0d2-41fb-bcec-58387404e25a", 0x1000000000001ULL, 0xFF },
  { "Microsoft-Windows-Superfetch", "99806515-9f51-4c2f-b918-1eae407aa8cb", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DriverFrameworks-UserMode", "2e35aaeb-857f-4beb-a418-2e6c0e54d988", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-SystemSettings", NULL, 0x1000000000000ULL, LEVEL_INFORMATIONAL },
  { "Microsoft-Windows-DHCPv6-Client", "6a1f2b00-6a90-4c38-95a5-5cab3b056778", 0x1000000000000ULL, LEVEL_INFORMATIONAL },
};

/* "Microsoft-Windows-X, Microsoft-Windows-Y" for the note. */
static void unknown_names(char *out, size_t cap)
{
  size_t i, used = 0;
  out[0] = '\0';
  for (i = 0; i < sizeof(wpr_providers) / sizeof(wpr_providers[0]); i++)
    if (!wpr_providers[i].guid && used < cap) {
      int n = snprintf(out + used, cap - used, "%s%s", used ? ", " : "", wpr_providers[i].name);
      used += n > 0 ? (size_t)n : 0;
    }
}

int plan_wpr_providers(struct plan *plan, struct plan_session *s)
{
  char left_out[512];
  size_t i;
  for (i = 0; i < sizeof(wpr_providers) / sizeof(wpr_providers[0]); i++) {
    const struct wpr_provider *w = &wpr_providers[i];
    struct plan_provider *p;
    if (!w->guid)
      continue;
    if (!(p = plan_push_provider(s)))
      return ETWCAP_E_NOMEM;
    if (guid_parse_n(w->guid, strlen(w->guid), &p->guid) != 0)
      return ETWCAP_E_INTERNAL; /* the table holds GUIDs only */
    snprintf(p->name, sizeof(p->name), "%s", w->name);
    p->level = w->level;
    p->match_any = w->keywords;
    p->stacks = 0;
    p->origin = "Wpr";
  }
  unknown_names(left_out, sizeof(left_out));
  return plan_note(plan, "/Wpr: PerfView's WPR list also names %s, which etwcap has no GUID for "
                   "(Windows 8 components); add them with /Providers where Windows has them",
                   left_out);
}
