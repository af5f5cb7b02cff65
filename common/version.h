/* SPDX-License-Identifier: MIT */
#pragma once

#define FLEXSLOT_VERSION "0.1.0"
