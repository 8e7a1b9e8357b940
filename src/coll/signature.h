/*
 * A collective call's signature (coll/coll_start.c makes it; docs/PROTOCOL.md, "Signatures"):
 * the hash of its arguments, the team's id and the call number in one word, which every message
 * of the call carries, whole in a line or a slot and shortened in a cell (coll/team.h). The
 * bit layout and the cells' tags, for the executor that writes and checks them and for the
 * stray check (coll/coll_stray.h) that reads them.
 */
#ifndef ARBOR_CORE_SIGNATURE_H
#define ARBOR_CORE_SIGNATURE_H

#include <stdbool.h>
#include <stdint.h>

enum { ARB_SIG_CALL_BITS = 16 }; /* coll_stray.c reads them as an int16_t distance */
enum { ARB_SIG_TEAM_BITS = 16 };

/* The signature of call n of the team with id team_id: the hash of its arguments with n's low
 * bits, and above them the team id's, in place of its own. The team's bits tell a word or a
 * line that another team left in memory this team reuses (a member's late store of what it
 * waited for, a freed team's last message) from one of this team's calls. */
static inline uint64_t arb_sig_tag(uint64_t hash, uint64_t team_id, uint64_t n)
{
    const uint64_t call = (1ull << ARB_SIG_CALL_BITS) - 1;
    const uint64_t team = ((1ull << ARB_SIG_TEAM_BITS) - 1) << ARB_SIG_CALL_BITS;
    return (hash & ~(call | team)) | ((team_id << ARB_SIG_CALL_BITS) & team) | (n & call);
}

/* Whether sig was made on the team with id team_id (as far as its bits tell). */
static inline bool arb_sig_of_team(uint64_t sig, uint64_t team_id)
{
    const uint64_t team = ((1ull << ARB_SIG_TEAM_BITS) - 1) << ARB_SIG_CALL_BITS;
    return ((sig ^ (team_id << ARB_SIG_CALL_BITS)) & team) == 0;
}

/* The short signature a cell carries (coll/team.h): the call number's bits and the rest folded
 * into 16 bits. Two calls of one number with different arguments differ in it but for one
 * chance in 65536 (the full signature: in lines and slots). */
static inline uint32_t arb_sig_short(uint64_t sig)
{
    uint64_t rest = sig >> ARB_SIG_CALL_BITS;
    uint64_t fold = (rest ^ (rest >> 16) ^ (rest >> 32)) & 0xffff;
    return (uint32_t)(sig & ((1u << ARB_SIG_CALL_BITS) - 1)) | (uint32_t)fold << 16;
}
/* A cell's tag (coll/team.h): the ticket in the low 31 bits (never 0, so a cell never written
 * matches no ticket), ARB_CELL_VOID when the ticket's message went elsewhere (a line, a slot, a
 * one-copy descriptor: the sender marks the cell, so cells are rewritten as the ring goes round),
 * and the call's short signature in the high 32 bits. A cell left unwritten (the far part of a
 * long one-copy span) could pass for a later ticket's only 2^31 - 1 tickets on, and then only
 * with that call's number and fold. */
#define ARB_CELL_VOID 0x80000000u
static inline uint32_t arb_cell_ticket(uint64_t ticket)
{
    return (uint32_t)(ticket % 0x7fffffffu) + 1;
}
static inline uint64_t arb_cell_tag(uint64_t sig, uint64_t ticket)
{
    return (uint64_t)arb_sig_short(sig) << 32 | arb_cell_ticket(ticket);
}

#endif
