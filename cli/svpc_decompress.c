/* svpc-decompress - a single-stream simtrace container in, raw entries out
 * (cli_decompress.c, which svpc-compress -d runs too). */
#include "cli_util.h"

int main(int argc, char **argv) { return cli_decompress_main(argc, argv, "svpc-decompress", "svpc-decompress"); }
