/* SPDX-License-Identifier: MIT */
#pragma once

/* What the files of the YARN model share and nothing outside them sees
 * (yarn-model.h is the model's API):
 *
 *   yarn-model.c      the ResourceManager's and application masters'
 *                     answers taken in: nodes, applications, tasks, attempts
 *   yarn-snapshot.c   the policy step's snapshot of them
 *   yarn-actions.c    a step's decisions into what YARN can be asked
 *
 * A file calls only those above it in this list. */

#include <stdbool.h>

#include "controller/daemon/yarn-model.h"

bool yarn_id_set_has(const YarnIdSet *set, const char *id);
/* Adds id: 1 when it is new, 0 when it was there, -ENOMEM. */
int yarn_id_set_add(YarnIdSet *set, const char *id);

/* What the controller may ask of a node: min-containers at least (its
 * registered capacity when that holds fewer), its registered capacity at
 * most. */
unsigned yarn_model_clamp_slots(const YarnModel *m, const YarnModelNode *n, unsigned slots);

/* The node of YARN node id id, or of the live model's node; NULL. */
YarnModelNode *yarn_model_node_by_id(const YarnModel *m, const char *id);
YarnModelNode *yarn_model_node_by_node(const YarnModel *m, uint64_t node);
