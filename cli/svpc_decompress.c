/* svpc-decompress - a single-stream simtrace container in, raw entries out
 * (cli_decompress.c, which svpc-compress -d runs too). */
#include "cli_util.h"

int main(int argc, char **argv)
{
    if (cli_std_fds("svpc-decompress") != EXIT_OK) /* first: before any file takes 0, 1 or 2 */
        return EXIT_DATA;
    return cli_decompress_main(argc, argv, "svpc-decompress", "svpc-decompress");
}
