/* symplan export (not yet written). */
#include <stdio.h>

#include "sp_commands.h"

int sp_cmd_export(int argc, char **argv)
{
    (void)argc, (void)argv;
    fputs("symplan: export is not available yet\n", stderr);
    return 2;
}
