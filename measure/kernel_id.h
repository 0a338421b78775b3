/* Which kernel a batch ran on: release (uname -r), the running kernel's
 * build-id (/sys/kernel/notes) and the boot id
 * (/proc/sys/kernel/random/boot_id).  lace stat and lace ab record them in
 * the results file so that `lace compare` can say which kernel each side
 * ran on, and warn when two "kernels" are one build or one boot. */
#ifndef LACE_MEASURE_KERNEL_ID_H
#define LACE_MEASURE_KERNEL_ID_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct lace_kernel_id {
	char release[128]; /* "" when unknown */
	char build_id[81]; /* lowercase hex; "" when /sys/kernel/notes has none */
	char boot_id[48];  /* "" when unknown */
};

/* The running kernel's identity; fields it cannot read stay "". */
void kernel_id_read(struct lace_kernel_id *k);
/* {"release":..,"build_id":..,"boot_id":..}, and back (absent keys: ""). */
json_t *kernel_id_json(const struct lace_kernel_id *k);
void kernel_id_from_json(struct lace_kernel_id *k, const json_t *j);

#endif
