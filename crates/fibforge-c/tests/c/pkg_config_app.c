/* A user's first program: built only through `pkg-config --cflags --libs fibforge` against
 * an installed prefix (tests/install.rs). Prints one line the test checks. */
#include <fibforge.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    fibforge_table4 *t = NULL;
    if (fibforge_table4_new(&t) != FIBFORGE_OK) {
        fprintf(stderr, "%s\n", fibforge_last_error());
        return 1;
    }
    fibforge_status s = fibforge_table4_insert(t, 0x0a000000u, 8, 5, NULL); /* 10.0.0.0/8 -> 5 */
    fibforge_status bad = fibforge_table4_insert(t, 0x0a000001u, 8, 5, NULL); /* host bits */
    uint32_t hit = fibforge_table4_lookup(t, 0x0a010203u);
    uint32_t miss = fibforge_table4_lookup(t, 0x08080808u);
    fibforge_table4_free(t);
    int same = strcmp(fibforge_version(), FIBFORGE_VERSION_STRING) == 0;
    printf("version %s header %d.%d.%d same=%d insert=%s bad=%s hit=%u miss=%s\n",
           fibforge_version(), FIBFORGE_VERSION_MAJOR, FIBFORGE_VERSION_MINOR,
           FIBFORGE_VERSION_PATCH, same, fibforge_status_str(s), fibforge_status_str(bad),
           (unsigned)hit, miss == FIBFORGE_NO_ROUTE ? "none" : "ROUTE");
    return same && s == FIBFORGE_OK && bad == FIBFORGE_ERR_INVALID && hit == 5 ? 0 : 1;
}
