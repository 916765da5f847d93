/*
 * snic: RSS groups and the steering table.
 *
 * A frame is matched against the valid rules in priority order (lower
 * value first, then lower id); the first whose every selected field
 * matches decides its fate.  Rule and group references keep RQs and groups
 * from being destroyed while in use.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "snic.h"

static void snic_rss_ref(SnicState *s, SnicRss *g, int delta)
{
    uint32_t i;

    for (i = 0; i < g->table_size; i++) {
        s->rqs[g->rqn[i]].refs += delta;
    }
}

/* CREATE_RSS, MODIFY_RSS and DESTROY_RSS. */
uint16_t snic_cmd_rss(SnicState *s, const struct snic_aq_cmd *c,
                      uint64_t *res)
{
    struct snic_rss_cfg cfg;
    uint32_t id = le32_to_cpu(c->opcode == SNIC_AQ_DESTROY_RSS ?
                              c->obj.id : c->buf.id);
    uint32_t i, size;
    uint16_t st;
    SnicRss *g;

    if (c->opcode != SNIC_AQ_CREATE_RSS &&
        (id >= SNIC_MAX_RSS || !s->rss[id].valid)) {
        return SNIC_AQ_ENOENT;
    }
    if (c->opcode == SNIC_AQ_DESTROY_RSS) {
        g = &s->rss[id];
        if (g->refs) {
            return SNIC_AQ_EBUSY;
        }
        snic_rss_ref(s, g, -1);
        g->valid = false;
        return SNIC_AQ_OK;
    }

    st = snic_aq_read_buf(s, c, &cfg, sizeof(cfg));
    if (st) {
        return st;
    }
    size = le32_to_cpu(cfg.table_size);
    if (!size || size > SNIC_RSS_TABLE_SIZE || !is_power_of_2(size) ||
        (le32_to_cpu(cfg.hash_fields) & ~(SNIC_RSS_HASH_IPV4 |
                                          SNIC_RSS_HASH_L4))) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    for (i = 0; i < size; i++) {
        uint32_t rqn = le32_to_cpu(cfg.rqn[i]);

        if (rqn >= SNIC_MAX_RQS || !s->rqs[rqn].valid) {
            return SNIC_AQ_ENOENT;
        }
    }
    if (c->opcode == SNIC_AQ_CREATE_RSS) {
        id = 0;
        while (id < SNIC_MAX_RSS && s->rss[id].valid) {
            id++;
        }
        if (id == SNIC_MAX_RSS) {
            return SNIC_AQ_ENOSPC;
        }
        g = &s->rss[id];
        g->refs = 0;
    } else {
        g = &s->rss[id];
        snic_rss_ref(s, g, -1);
    }
    g->valid = true;
    memcpy(g->key, cfg.key, sizeof(g->key));
    g->fields = le32_to_cpu(cfg.hash_fields);
    g->table_size = size;
    for (i = 0; i < size; i++) {
        g->rqn[i] = le32_to_cpu(cfg.rqn[i]);
    }
    snic_rss_ref(s, g, 1);
    *res = id;
    return SNIC_AQ_OK;
}

static uint32_t *snic_rule_dest_refs(SnicState *s,
                                     const struct snic_steer_rule *r)
{
    uint32_t id = le32_to_cpu(r->dest_id);

    if (r->dest == SNIC_DEST_RQ) {
        return &s->rqs[id].refs;
    }
    if (r->dest == SNIC_DEST_RSS) {
        return &s->rss[id].refs;
    }
    if (r->dest == SNIC_DEST_SPIN) {
        return s->spin_hook->ctx_refs(s, id);
    }
    return NULL;
}

uint16_t snic_cmd_add_rule(SnicState *s, const struct snic_aq_cmd *c,
                           uint64_t *res)
{
    struct snic_steer_rule r;
    uint32_t dest_id, *refs;
    uint16_t st;
    int n;

    st = snic_aq_read_buf(s, c, &r, sizeof(r));
    if (st) {
        return st;
    }
    dest_id = le32_to_cpu(r.dest_id);
    if (r.dest > SNIC_DEST_SPIN ||
        (r.actions & ~(SNIC_ACT_COUNT | SNIC_ACT_DECAP | SNIC_ACT_TAG)) ||
        (le32_to_cpu(r.match) & ~0xffu)) {
        return SNIC_AQ_EINVAL_PARAM;
    }
    if ((r.dest == SNIC_DEST_RQ &&
         (dest_id >= SNIC_MAX_RQS || !s->rqs[dest_id].valid)) ||
        (r.dest == SNIC_DEST_RSS &&
         (dest_id >= SNIC_MAX_RSS || !s->rss[dest_id].valid)) ||
        (r.dest == SNIC_DEST_SPIN && !s->spin_hook->ctx_exists(s, dest_id))) {
        return SNIC_AQ_ENOENT;
    }
    n = 0;
    while (n < SNIC_MAX_RULES && s->rules[n].valid) {
        n++;
    }
    if (n == SNIC_MAX_RULES) {
        return SNIC_AQ_ENOSPC;
    }
    s->rules[n].valid = true;
    s->rules_hi = MAX(s->rules_hi, n + 1);
    s->rules[n].r = r;
    s->rules[n].packets = 0;
    s->rules[n].bytes = 0;
    refs = snic_rule_dest_refs(s, &r);
    if (refs) {
        (*refs)++;
    }
    *res = n;
    return SNIC_AQ_OK;
}

uint16_t snic_cmd_del_rule(SnicState *s, const struct snic_aq_cmd *c)
{
    uint32_t id = le32_to_cpu(c->obj.id);
    uint32_t *refs;

    if (id >= SNIC_MAX_RULES || !s->rules[id].valid) {
        return SNIC_AQ_ENOENT;
    }
    refs = snic_rule_dest_refs(s, &s->rules[id].r);
    if (refs) {
        (*refs)--;
    }
    s->rules[id].valid = false;
    return SNIC_AQ_OK;
}

static bool snic_ip_match(uint32_t ip, __be32 want_be, __be32 mask_be)
{
    uint32_t mask = be32_to_cpu(mask_be);

    return (ip & mask) == (be32_to_cpu(want_be) & mask);
}

static bool snic_rule_matches(const struct snic_steer_rule *r,
                              const uint8_t *f, const SnicPktInfo *pi)
{
    uint32_t m = le32_to_cpu(r->match);
    bool l4 = pi->tcp || pi->udp;

    if ((m & SNIC_MATCH_DMAC) && memcmp(f, r->dmac, 6)) {
        return false;
    }
    if ((m & SNIC_MATCH_ETHERTYPE) &&
        pi->ethertype != be16_to_cpu(r->ethertype)) {
        return false;
    }
    if ((m & (SNIC_MATCH_IP_PROTO | SNIC_MATCH_SRC_IP | SNIC_MATCH_DST_IP |
              SNIC_MATCH_SRC_PORT | SNIC_MATCH_DST_PORT | SNIC_MATCH_VNI)) &&
        !pi->ipv4) {
        return false;
    }
    if ((m & SNIC_MATCH_IP_PROTO) && pi->ip_proto != r->ip_proto) {
        return false;
    }
    if ((m & SNIC_MATCH_SRC_IP) &&
        !snic_ip_match(pi->src_ip, r->src_ip, r->src_ip_mask)) {
        return false;
    }
    if ((m & SNIC_MATCH_DST_IP) &&
        !snic_ip_match(pi->dst_ip, r->dst_ip, r->dst_ip_mask)) {
        return false;
    }
    if ((m & SNIC_MATCH_SRC_PORT) &&
        (!l4 || pi->sport != be16_to_cpu(r->src_port))) {
        return false;
    }
    if ((m & SNIC_MATCH_DST_PORT) &&
        (!l4 || pi->dport != be16_to_cpu(r->dst_port))) {
        return false;
    }
    if ((m & SNIC_MATCH_VNI) &&
        (!pi->vxlan || pi->vni != le32_to_cpu(r->vni))) {
        return false;
    }
    return true;
}

/* @skip_spin: a frame a sPIN handler passed on ignores sPIN rules. */
SnicRule *snic_steer_match(SnicState *s, const uint8_t *f, size_t len,
                           const SnicPktInfo *pi, bool skip_spin)
{
    SnicRule *best = NULL;
    uint32_t i;

    for (i = 0; i < s->rules_hi; i++) {
        SnicRule *rule = &s->rules[i];

        if (!rule->valid || (skip_spin && rule->r.dest == SNIC_DEST_SPIN) ||
            (best && le16_to_cpu(rule->r.priority) >=
                     le16_to_cpu(best->r.priority))) {
            continue;
        }
        if (snic_rule_matches(&rule->r, f, pi)) {
            best = rule;
        }
    }
    return best;
}
