/* dispose(x) in a comment */
#include <stdio.h>

static int f(int a, int b) {
  if (a != 0) dispose(a);
  const char *s = "dispose(x)";
  printf("%d %s\n", 1, s);
  return a + b;
}
