/* OUT/<variant>/manifest.json: variant, script (and its SHA-256), the
 * variant's own flags, compiler, and every output with its size and
 * SHA-256, so a result can name exactly what was measured. */
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/json.h"
#include "util/json_schema.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "variants/build.h"

int variants_write_manifest(const struct variants_build *b, const struct plan_variant *v)
{
	const struct variants_config *cfg = b->cfg;
	struct strbuf p = STRBUF_INIT;
	json_t *m = json_schema_object("lace-build-manifest"), *outs = json_array(), *cf = json_array();
	char hex[65];
	int rc = 0;

	for (size_t i = 0; i < v->cflags.nr; i++)
		json_array_append_new(cf, lace_json_string(v->cflags.v[i]));
	json_object_set_new(m, "variant", json_string(v->name));
	json_object_set_new(m, "description", lace_json_string(v->description ? v->description : ""));
	if (v->shuffle) {
		json_object_set_new(m, "script", json_string("link.ld"));
		json_object_set_new(m, "script_base", lace_json_string(v->script));
		strbuf_addf(&p, "%s/link.ld", v->dir);
		json_object_set_new(m, "shuffle", json_pack("{s:I, s:I}", "seed", (json_int_t)v->seed,
							    "index", (json_int_t)v->shuffle));
	} else {
		json_object_set_new(m, "script", lace_json_string(v->script));
		strbuf_addstr(&p, v->script_path);
		json_object_set_new(m, "shuffle", json_null());
	}
	if ((rc = sha256_file_hex(p.buf, hex)) == 0)
		json_object_set_new(m, "script_sha256", json_string(hex));
	else
		rc = lace_error_set(-rc, "%s: cannot read", p.buf);
	json_object_set_new(m, "cflags", cf);
	json_object_set_new(m, "ldflags", lace_json_string(v->ldflags ? v->ldflags : ""));
	json_object_set_new(m, "compiler", json_string(b->compiler));
	for (size_t i = 0; i < cfg->nprogs && !rc; i++) {
		struct stat st;

		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", v->dir, cfg->progs[i].name);
		if ((rc = sha256_file_hex(p.buf, hex)) || stat(p.buf, &st)) {
			rc = lace_error_set(rc ? -rc : errno, "%s: cannot read", p.buf);
			break;
		}
		json_array_append_new(outs, json_pack("{s:s, s:I, s:s}", "name", cfg->progs[i].name,
						      "size", (json_int_t)st.st_size, "sha256", hex));
	}
	json_object_set_new(m, "outputs", outs);
	if (!rc) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/manifest.json", v->dir);
		if (json_dump_file(m, p.buf, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			rc = lace_error_set(EIO, "%s: cannot write", p.buf);
	}
	json_decref(m);
	strbuf_release(&p);
	return rc;
}
