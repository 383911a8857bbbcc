#include "lie/sp_status.h"

const char *sp_status_name(sp_status status)
{
    switch (status) {
#define SP_STATUS_NAME(code, name, message)                                                                            \
    case code:                                                                                                         \
        return name;
        SP_STATUS_LIST(SP_STATUS_NAME)
#undef SP_STATUS_NAME
    }
    return "unknown";
}

const char *sp_status_message(sp_status status)
{
    switch (status) {
#define SP_STATUS_MESSAGE(code, name, message)                                                                         \
    case code:                                                                                                         \
        return message;
        SP_STATUS_LIST(SP_STATUS_MESSAGE)
#undef SP_STATUS_MESSAGE
    }
    return "unknown status";
}
