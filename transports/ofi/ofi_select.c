/*
 * libfabric backend: provider choice. fi_getinfo with RDM + FI_RMA | FI_ATOMIC, the mr_mode bits
 * we can serve and FI_CONTEXT | FI_CONTEXT2; then, for the chosen provider, a second fi_getinfo
 * that also asks for FI_FENCE (only sockets grants it in 1.17, see PLATFORM.md). sockets and tcp
 * may bind a non-loopback interface first; when every rank runs on this host we pin "lo" through
 * FI_SOCKETS_IFACE / FI_TCP_IFACE unless the user set them (before the first fi_getinfo, which
 * is when the providers read them).
 */
#include "transports/ofi/ofi.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Software providers libfabric offers that we take only when nothing better is there. */
static const char *const demoted[] = {"net", "net;ofi_rxm", "udp;ofi_rxd", "sockets"};

/* What the launcher says about the ranks on this host (Open MPI, Slurm); false if it says
 * nothing and there is more than one rank. */
static bool ranks_all_local(int size)
{
    const char *v;

    if (size <= 1) return true;
    v = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (v != NULL && atoi(v) == size) return true;
    v = getenv("SLURM_STEP_NUM_NODES");
    if (v != NULL && atoi(v) == 1) return true;
    return false;
}

static void pin_loopback(void)
{
    static const char *const vars[] = {"FI_TCP_IFACE", "FI_SOCKETS_IFACE"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        if (getenv(vars[i]) != NULL) continue; /* the user's choice wins */
        if (setenv(vars[i], "lo", 0) != 0) arb_warn("setenv %s: %m", vars[i]);
    }
}

static struct fi_info *hints_new(const char *prov, uint64_t caps)
{
    struct fi_info *hints = fi_allocinfo();

    if (hints == NULL) return NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_RMA | FI_ATOMIC | caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    if (prov != NULL && (hints->fabric_attr->prov_name = strdup(prov)) == NULL) {
        fi_freeinfo(hints);
        return NULL;
    }
    return hints;
}

static struct fi_info *getinfo(const char *prov, uint64_t caps, const struct fi_info *like)
{
    struct fi_info *hints = hints_new(prov, caps), *list = NULL;
    int rc;

    if (hints == NULL) return NULL;
    if (like != NULL) {
        hints->fabric_attr->name = strdup(like->fabric_attr->name);
        hints->domain_attr->name = strdup(like->domain_attr->name);
    }
    rc = fi_getinfo(ARB_OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc != 0) {
        arb_debug("fi_getinfo (provider %s, caps 0x%llx): %s", prov ? prov : "any",
                  (unsigned long long)caps, fi_strerror(-rc));
        return NULL;
    }
    return list;
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
    struct fi_info *all = getinfo(NULL, 0, NULL), *bare;
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
    struct fi_info *list, *fenced, *info;
    const struct fi_info *pick;
    bool named = want != NULL && want[0] != '\0';

    tp->all_local = ranks_all_local(tp->size);
    if (tp->all_local) pin_loopback();
    list = getinfo(named ? want : NULL, 0, NULL);
    if (list == NULL) {
        if (named)
            report_missing(want);
        else
            arb_error("libfabric offers no RDM provider with FI_RMA and FI_ATOMIC");
        return ARBOR_ERR_UNSUPPORTED;
    }
    pick = named ? list : choose(list, tp->all_local);
    if (pick == NULL) {
        arb_error("libfabric: only shm offers FI_RMA and FI_ATOMIC, and the ranks are not all "
                  "on this host");
        fi_freeinfo(list);
        return ARBOR_ERR_UNSUPPORTED;
    }
    fenced = getinfo(pick->fabric_attr->prov_name, FI_FENCE, pick);
    info = fi_dupinfo(fenced != NULL ? fenced : pick);
    fi_freeinfo(fenced);
    fi_freeinfo(list);
    if (info == NULL) {
        arb_error("fi_dupinfo: out of memory");
        return ARBOR_ERR_NO_MEMORY;
    }
    *info_p = info;
    return ARBOR_OK;
}
