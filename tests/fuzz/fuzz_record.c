/* Fuzz target: a recording (measure/replay/record_file.h) read from memory and,
 * when it parses, replayed through the model (measure/replay/replay.h): a
 * truncated or foreign file must be an error, a malformed stream inside a
 * well-formed file too, never a crash. */
#include "measure/replay/record_file.h"
#include "measure/replay/replay.h"
#include "tests/fuzz/fuzz_input.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lace_record rec;
	struct replay_result res;

	record_init(&rec);
	if (record_file_parse("fuzz", data, size, &rec) == 0) {
		replay_run(&rec, NULL, &res);
		replay_result_free(&res);
	}
	record_free(&rec);
	lace_error_clear();
	return 0;
}
