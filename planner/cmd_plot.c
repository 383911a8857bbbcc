/* symplan plot (not yet written). */
#include <stdio.h>

#include "sp_commands.h"

int sp_cmd_plot(int argc, char **argv)
{
    (void)argc, (void)argv;
    fputs("symplan: plot is not available yet\n", stderr);
    return 2;
}
