/* CPU profiles: the front-end geometry of one core, read from a data file
 * (measure/model/profiles/NAME.conf, INI parsed with inih).  Each value is
 * cited in doc/events.md. */
#ifndef LACE_SIM_PROFILE_H
#define LACE_SIM_PROFILE_H

#include <stddef.h>

#include "measure/model/model.h"

struct sim_profile {
	char name[64];
	char description[128];
	struct sim_config cfg;
};

#define SIM_PROFILE_DEFAULT "skylake-client"

/* Load a profile by name (searched in the profile folders) or by path
 * (when it holds a '/').  0, or -errno with the message set. */
int sim_profile_load(const char *name_or_path, struct sim_profile *p);
/* The folder profiles are read from, or NULL: $LACE_PROFILE_DIR, then
 * <lace>/../measure/model/profiles (build tree), then
 * <lace>/../share/lace/profiles (installed). */
const char *sim_profile_dir(void);

/* Overrides: "SIZE,WAYS,LINE" for the L1i, "ENTRIES,WAYS" for the TLBs
 * (stlb "0" or "0,0" = none), a page size, a fetch block size.  0 or
 * -EINVAL with the message set. */
int sim_profile_set_l1i(struct sim_profile *p, const char *spec);
int sim_profile_set_itlb(struct sim_profile *p, const char *spec);
int sim_profile_set_stlb(struct sim_profile *p, const char *spec);
int sim_profile_set_page(struct sim_profile *p, const char *spec);
int sim_profile_set_fetch_block(struct sim_profile *p, const char *spec);
/* The page size of the kernel image's text ([page] kernel): a size the
 * profile's large-page TLB holds, or the ordinary page (4K: no large
 * pages).  0 or -EINVAL with the message set. */
int sim_profile_set_kernel_page(struct sim_profile *p, const char *spec);
/* Check the whole geometry; 0 or -EINVAL with the message set. */
int sim_profile_check(const struct sim_profile *p);

/* The most CPU profiles one run models (--cpu-profile A,B,...). */
#define SIM_MAX_PROFILES 8
/* A --cpu-profile list, NAME[,NAME...] (names or paths), each loaded
 * into out[] (max of them); *n how many.  Their own names must differ:
 * they name the events of each (NAME@PROFILE).  0 or -errno with the
 * message set. */
int sim_profile_list_load(const char *list, struct sim_profile *out, size_t max, size_t *n);

/* The profiles one run models: the first, those modelled beside it, and
 * the names their events carry (EVENT@NAME), as both model hosts (the
 * Valgrind tool's backend and the qemu backend) hold them. */
struct sim_profiles {
	struct sim_profile prof;                        /* the first profile */
	struct sim_profile more[SIM_MAX_PROFILES - 1];  /* the others, modelled beside */
	size_t nmore;
	char names[SIM_MAX_PROFILES][64];               /* as the files name them */
	const char *name_v[SIM_MAX_PROFILES];
	size_t nnames;
};
/* sim_profile_list_load() into ps: all of it, or nothing on an error
 * (0 or -errno with the message set, -ENOENT for a name not found). */
int sim_profiles_load(struct sim_profiles *ps, const char *list);

#endif
