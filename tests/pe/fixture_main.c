/* A tiny program: the PE reader's fixtures only need its headers, sections
 * and debug directory, not what it does. */
int main(void)
{
  return 0;
}
