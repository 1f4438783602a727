#include <stdio.h>
int main(void) { puts("hello from a cmake build"); return 0; }
