/*
 * libfabric backend: provider choice. fi_getinfo with RDM + FI_RMA | FI_ATOMIC, the mr_mode bits
 * we can serve and FI_CONTEXT | FI_CONTEXT2; then, for the chosen provider, more fi_getinfo calls
 * that also ask for FI_ORDER_RMA_WAW (which put_signal's remote-CQ-data signals need, ofi_rma.c)
 * and manual data progress. sockets and tcp may bind a non-loopback interface first; when every
 * rank runs on this host we pin "lo" through FI_SOCKETS_IFACE / FI_TCP_IFACE unless the user set
 * them (before the first fi_getinfo, which is when the providers read them).
 *
 * Manual progress: shm only has it, tcp;ofi_rxm defaults to it, and sockets' automatic progress
 * thread competes with the ranks for the cores: with more ranks than cores (the tests run 8 on
 * 2) every operation waits for a time slice (milliseconds per put_signal). The core drives
 * progress in every wait loop anyway, because shm and tcp need the target's calls.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Software providers libfabric offers that we take only when nothing better is there. */
static const char *const demoted[] = {"net", "net;ofi_rxm", "udp;ofi_rxd", "sockets"};

/* Providers that claim FI_RMA | FI_ATOMIC but crash on what we do, up to a libfabric version:
 * refused with the reason rather than left to take the process down. */
static const struct {
    const char *name; /* part of the provider name */
    uint32_t upto;    /* last broken version */
    const char *why;
} broken[] = {{"ofi_rxd", FI_VERSION(1, 17),
               "one fi_fetch_atomic crashes it inside fi_cq_read (libfabric 1.17)"}};

static void pin_loopback(void)
{
    static const char *const vars[] = {"FI_TCP_IFACE", "FI_SOCKETS_IFACE"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        if (getenv(vars[i]) != NULL) continue; /* the user's choice wins */
        if (setenv(vars[i], "lo", 0) != 0) arb_warn("setenv %s: %m", vars[i]);
    }
}

static struct fi_info *hints_new(const char *prov, uint64_t order, enum fi_progress progress,
                                 uint64_t extra_caps)
{
    struct fi_info *hints = fi_allocinfo();

    if (hints == NULL) return NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_RMA | FI_ATOMIC | extra_caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->domain_attr->data_progress = progress;
    hints->tx_attr->msg_order = order;
    if (prov != NULL && (hints->fabric_attr->prov_name = strdup(prov)) == NULL) {
        fi_freeinfo(hints);
        return NULL;
    }
    return hints;
}

static struct fi_info *getinfo(const char *prov, uint64_t order, enum fi_progress progress,
                               const struct fi_info *like, uint64_t extra_caps)
{
    struct fi_info *hints = hints_new(prov, order, progress, extra_caps), *list = NULL;
    int rc;

    if (hints == NULL) return NULL;
    if (like != NULL) {
        hints->fabric_attr->name = strdup(like->fabric_attr->name);
        hints->domain_attr->name = strdup(like->domain_attr->name);
    }
    rc = fi_getinfo(ARB_OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc != 0) {
        arb_debug("fi_getinfo (provider %s, order 0x%llx, progress %d): %s", prov ? prov : "any",
                  (unsigned long long)order, (int)progress, fi_strerror(-rc));
        return NULL;
    }
    return list;
}

/* The chosen provider with what we would like on top, best first: write-after-write order
 * (remote-CQ-data signals) and manual progress. A provider that only progresses by itself is
 * as good without the latter (our progress calls cost it little). */
static struct fi_info *refine(const struct fi_info *pick, uint64_t extra_caps)
{
    static const struct {
        uint64_t order;
        enum fi_progress progress;
    } wish[] = {{FI_ORDER_RMA_WAW, FI_PROGRESS_MANUAL},
                {0, FI_PROGRESS_MANUAL},
                {FI_ORDER_RMA_WAW, FI_PROGRESS_UNSPEC}};
    struct fi_info *got, *info;

    for (size_t i = 0; i < sizeof(wish) / sizeof(wish[0]); i++) {
#ifdef ARB_OFI_TEST_NO_CQ_DATA /* test builds: shm then keeps FI_MR_VIRT_ADDR, as unordered */
        if (wish[i].order != 0) continue;
#endif
        got = getinfo(pick->fabric_attr->prov_name, wish[i].order, wish[i].progress, pick,
                      extra_caps);
        if (got == NULL) continue;
        info = fi_dupinfo(got);
        fi_freeinfo(got);
        return info;
    }
    return extra_caps ? NULL : fi_dupinfo(pick);
}

/* Offload (coll/offload.h): the chosen provider again, with provider collectives (which run
 * over its tagged messages) on top; NULL when it has none. Asked only when the core may use
 * them, and only after the choice, so that the choice itself never changes. */
static struct fi_info *refine_offload(const arb_tp_t *tp, const struct fi_info *pick)
{
    if (tp->offload_want & ARB_TP_CAP_TRIGGERED) {
        /* Triggered writes fire inside the provider only under its automatic progress
         * (tests/probe_trigger.c), which costs every other operation here: this mode only. */
        static const uint64_t order[] = {FI_ORDER_RMA_WAW, 0};
        for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
            struct fi_info *got = getinfo(pick->fabric_attr->prov_name, order[i], FI_PROGRESS_AUTO,
                                          pick, FI_TRIGGER | FI_RMA_EVENT);
            if (got == NULL) continue;
            struct fi_info *info = fi_dupinfo(got);
            fi_freeinfo(got);
            return info;
        }
        arb_debug("libfabric provider %s does not offer FI_TRIGGER | FI_RMA_EVENT with automatic "
                  "progress",
                  pick->fabric_attr->prov_name);
        return NULL;
    }
    if (!(tp->offload_want & ARB_TP_CAP_HW_COLL)) return NULL;
    struct fi_info *info = refine(pick, FI_COLLECTIVE | FI_MSG | FI_TAGGED);
    arb_debug("libfabric provider %s %s FI_COLLECTIVE", pick->fabric_attr->prov_name,
              info ? "offers" : "does not offer");
    return info;
}

static const char *broken_why(const char *name)
{
    for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++)
        if (strstr(name, broken[i].name) != NULL && fi_version() <= broken[i].upto)
            return broken[i].why;
    return NULL;
}

static bool is_demoted(const char *name)
{
    for (size_t i = 0; i < sizeof(demoted) / sizeof(demoted[0]); i++)
        if (strcmp(name, demoted[i]) == 0) return true;
    return false;
}

/* auto: shm when every rank is local, then libfabric's order with the demoted ones last. */
static const struct fi_info *choose(const struct fi_info *list, bool all_local)
{
    const struct fi_info *i, *fallback = NULL;

    for (i = list; i != NULL && all_local; i = i->next)
        if (strcmp(i->fabric_attr->prov_name, "shm") == 0) return i;
    for (i = list; i != NULL; i = i->next) {
        if (strcmp(i->fabric_attr->prov_name, "shm") == 0) continue; /* one host only */
        if (broken_why(i->fabric_attr->prov_name) != NULL) continue;
        if (!is_demoted(i->fabric_attr->prov_name)) return i;
        if (fallback == NULL) fallback = i;
    }
    return fallback;
}

/* "a, b, c": the distinct provider names of list. */
static void names(const struct fi_info *list, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (const struct fi_info *i = list; i != NULL; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        bool seen = false;
        for (const struct fi_info *j = list; j != i; j = j->next)
            seen |= strcmp(j->fabric_attr->prov_name, name) == 0;
        if (seen || used >= len) continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
    }
    if (buf[0] == '\0') snprintf(buf, len, "none");
}

static void report_missing(const char *want)
{
    struct fi_info *all = getinfo(NULL, 0, FI_PROGRESS_UNSPEC, NULL, 0), *bare;
    struct fi_info *hints = fi_allocinfo();
    char offered[512];

    names(all, offered, sizeof(offered));
    bare = NULL;
    if (hints != NULL && (hints->fabric_attr->prov_name = strdup(want)) != NULL) {
        hints->ep_attr->type = FI_EP_RDM;
        if (fi_getinfo(ARB_OFI_API_VERSION, NULL, NULL, 0, hints, &bare) != 0) bare = NULL;
    }
    if (bare != NULL)
        arb_error("libfabric provider \"%s\" has no RDM endpoint with FI_RMA and FI_ATOMIC; "
                  "providers that have: %s",
                  want, offered);
    else
        arb_error("libfabric provider \"%s\" is not available here; RDM providers with FI_RMA "
                  "and FI_ATOMIC: %s",
                  want, offered);
    fi_freeinfo(bare);
    fi_freeinfo(hints);
    fi_freeinfo(all);
}

arbor_status_t arb_ofi_select(arb_tp_t *tp, const char *want, struct fi_info **info_p)
{
    struct fi_info *list, *info;
    const struct fi_info *pick;
    bool named = want != NULL && want[0] != '\0';

    if (tp->all_local) pin_loopback();
    list = getinfo(named ? want : NULL, 0, FI_PROGRESS_UNSPEC, NULL, 0);
    if (list == NULL) {
        if (named)
            report_missing(want);
        else
            arb_error("libfabric offers no RDM provider with FI_RMA and FI_ATOMIC");
        return ARBOR_ERR_UNSUPPORTED;
    }
    pick = named ? list : choose(list, tp->all_local);
    if (pick == NULL) {
        arb_error("libfabric: no provider but shm (one host only) and known-broken ones offers "
                  "FI_RMA and FI_ATOMIC, and the ranks are not all on this host");
        fi_freeinfo(list);
        return ARBOR_ERR_UNSUPPORTED;
    }
    if (broken_why(pick->fabric_attr->prov_name) != NULL) { /* named: choose() skips them */
        arb_error("libfabric provider \"%s\" cannot run arbor: %s; choose another with "
                  "ARBOR_OFI_PROVIDER",
                  pick->fabric_attr->prov_name, broken_why(pick->fabric_attr->prov_name));
        fi_freeinfo(list);
        return ARBOR_ERR_UNSUPPORTED;
    }
    info = refine_offload(tp, pick);
    if (info == NULL) info = refine(pick, 0);
    fi_freeinfo(list);
    if (info == NULL) {
        arb_error("fi_dupinfo: out of memory");
        return ARBOR_ERR_NO_MEMORY;
    }
    *info_p = info;
    return ARBOR_OK;
}
