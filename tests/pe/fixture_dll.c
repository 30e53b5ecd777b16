/* A tiny DLL with one export, for the PE reader's fixtures. */
__declspec(dllexport) int etwcap_fixture_answer(void);

__declspec(dllexport) int etwcap_fixture_answer(void)
{
  return 42;
}
