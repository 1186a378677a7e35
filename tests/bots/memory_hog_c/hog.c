/* Reads `start`, then allocates and touches 16 MB blocks until the kernel stops it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    char line[1 << 16];
    if (!fgets(line, sizeof line, stdin)) return 1;
    for (;;) {
        char *block = malloc(16 << 20);
        if (block == NULL) {
            fputs("malloc failed\n", stderr);
            return 2;
        }
        memset(block, 1, 16 << 20);
    }
}
