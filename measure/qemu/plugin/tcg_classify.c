/* What the TCG plugin's translation learns of one guest instruction: a
 * window marker, a function's entry, an interrupt vector.  Translation
 * time only: nothing here runs per execution (lace_tcg_plugin.c). */
#include <stdint.h>

#include "measure/qemu/plugin/qemu_plugin_v1.h"
#include "measure/qemu/symmap.h"
#include "measure/qemu/tcg_core.h"
#include "measure/qemu/plugin/tcg_plugin.h"

/* ppc64 takes an interrupt in real mode (MSR[IR] off) at the vector's
 * physical address (0x900), with relocation on at 0xc000...4900: compare
 * without the top nibble, which real mode ignores. */
uint64_t vec_key(uint64_t va)
{
	return arch == TCG_ARCH_PPC64 ? va & ~((uint64_t)0xf << 60) : va;
}

int tcg_is_irq_vector(uint64_t va)
{
	for (size_t i = 0; i < nirq; i++)
		if (irq_vec[i] == vec_key(va))
			return 1;
	return 0;
}

int tcg_is_entry(const struct symmap_sym *s, uint64_t va, const void *ha)
{
	if (s->addr == va)
		return 1;
	/* the global entry's 8 bytes lie just before, on the same guest page
	 * (so in the same host mapping) */
	if (arch != TCG_ARCH_PPC64 || va != s->addr + 8 || !ha || (va & 0xfff) < 8)
		return 0;
	return tcg_ppc64_has_local_entry((const uint8_t *)ha - 8);
}

enum tcg_mark tcg_mark_at(struct qemu_plugin_tb *tb, size_t i, size_t n,
			  struct qemu_plugin_insn *insn, size_t len)
{
	if (arch == TCG_ARCH_PPC64) {
		if (i + 1 >= n || len != 4 || qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, i + 1)) != 4)
			return TCG_MARK_NONE;
		return tcg_mark_kind_ppc64(qemu_plugin_insn_data(insn),
					   qemu_plugin_insn_data(qemu_plugin_tb_get_insn(tb, i + 1)));
	}
	return tcg_mark_kind(qemu_plugin_insn_data(insn), len);
}
