/* SPDX-License-Identifier: MIT */
#pragma once

/* The release, shown by every program's --version. */
#define FLEXSLOT_VERSION "0.1.0"
