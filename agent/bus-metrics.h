/* SPDX-License-Identifier: MIT */
#pragma once

/* org.flexslot.Agent1's metrics of one domain, for the agent and its
 * clients: the struct GetMetrics, GetAllMetrics, GetHistory and the Sample
 * signal carry, field by field:
 *    1 s  name            6 t  memory (bytes)       11 u  cpu-weight (cpu_shares)
 *    2 s  UUID            7 t  maximum memory       12 d  cpu-cap (CPUs; 0: none)
 *    3 s  state           8 d  CPU use (CPUs)       13 t  guest memory in use (bytes)
 *    4 u  vCPUs           9 d  steal (0..1)
 *    5 u  maximum vCPUs  10 u  valid: AgentMetricValid bits
 * Fields 1-9 keep the meaning they had before fields 10-13 came: a rate
 * without a value is -1 and a size or count without one 0. Fields 11-13
 * hold 0 (cpu-cap -1) without a value; field 10 says which fields hold one. */
#define AGENT_METRICS_TYPE "(sssuuttdduudt)"

typedef enum AgentMetricValid {
        AGENT_METRIC_VCPUS = 1u << 0,       /* fields 4 and 5 */
        AGENT_METRIC_MEMORY = 1u << 1,      /* fields 6 and 7 */
        AGENT_METRIC_CPU_USE = 1u << 2,     /* field 8 */
        AGENT_METRIC_STEAL = 1u << 3,       /* field 9 */
        AGENT_METRIC_CPU_WEIGHT = 1u << 4,  /* field 11 */
        AGENT_METRIC_CPU_CAP = 1u << 5,     /* field 12 */
        AGENT_METRIC_MEMORY_USED = 1u << 6, /* field 13: needs the guest's balloon driver */
} AgentMetricValid;
