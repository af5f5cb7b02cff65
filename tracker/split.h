/* SPDX-License-Identifier: MIT */
#pragma once

/* Moved to mapred/split.h; this name stays only until its last user in
 * controller/daemon/ includes that. */
#include "mapred/split.h"
