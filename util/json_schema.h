/* The schema fields every JSON document of lace starts with.
 *
 * "schema" names what the document holds ("lace-layout", "lace-diff",
 * "lace-stat", ...), "schema_version" the revision of its fields: it goes
 * up when a field changes meaning or goes away, not when one is added, so
 * a script can refuse a document it does not understand (doc/lace.1). */
#ifndef LACE_UTIL_JSON_SCHEMA_H
#define LACE_UTIL_JSON_SCHEMA_H

#include <jansson.h>

#define LACE_SCHEMA_VERSION 1

/* A new object holding only the two schema fields, to add the rest to. */
static inline json_t *json_schema_object(const char *schema)
{
	json_t *o = json_object();

	json_object_set_new(o, "schema", json_string(schema));
	json_object_set_new(o, "schema_version", json_integer(LACE_SCHEMA_VERSION));
	return o;
}

#endif
