#include "trace/trace-hw_d2d.h"
