/* symplan study (not yet written). */
#include <stdio.h>

#include "sp_commands.h"

int sp_cmd_study(int argc, char **argv)
{
    (void)argc, (void)argv;
    fputs("symplan: study is not available yet\n", stderr);
    return 2;
}
