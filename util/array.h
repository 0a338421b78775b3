/* array: the element count of an array whose size the compiler knows.
 *
 * The one definition: open-coded sizeof(a) / sizeof(a[0]) silently gives
 * the wrong answer when a is later made a pointer; this one stays a single
 * place to harden (tests/integration/t_toolbox.sh keeps it the only one). */
#ifndef LACE_ARRAY_H
#define LACE_ARRAY_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
