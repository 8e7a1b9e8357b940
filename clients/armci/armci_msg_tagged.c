/* Tagged point-to-point messages (armci_msg_snd / rcv / rcvany) over arbor's active messages.
 * A message travels as fragments of at most arbor_am_max_payload() bytes, each a fragment
 * header and a piece of the data. The receiver's handler reassembles them (fragments of one
 * origin run in issue order, and a sender's fragments of one message are issued back to back)
 * and queues complete messages in arrival order, so a receive takes the oldest match: messages
 * of one sender and tag are received in the order sent, as with MPI. Sends are buffered at the
 * receiver: armci_msg_snd returns once its fragments are handed to arbor. */
#include "armci_arbor.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t tag;
    uint32_t pad;
    uint64_t total;  /* bytes of the whole message */
    uint64_t offset; /* where this fragment's data goes */
} fragment_t;

typedef struct message {
    struct message *next;
    int src, tag;
    size_t len, received;
    unsigned char *data;
} message_t;

/* Handlers run on whichever thread drives arbor's progress (ARMCI_Init starts the progress
 * thread), receives on the program's: the queues are shared under this lock, held only for a
 * list operation. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static message_t *done_head, *done_tail; /* complete messages, arrival order */
static message_t **assembling;           /* per source: the message whose fragments arrive */
static int handler_registered;

static void finish(message_t *m)
{
    m->next = NULL;
    if (done_tail)
        done_tail->next = m;
    else
        done_head = m;
    done_tail = m;
}

static void on_fragment(arbor_am_token_h token, int src, void *payload, size_t nbytes, void *arg)
{
    (void)token, (void)arg;
    fragment_t h;
    if (nbytes < sizeof h || src < 0 || src >= armcia_nproc) return; /* not ours: cannot be */
    memcpy(&h, payload, sizeof h);
    size_t piece = nbytes - sizeof h;
    pthread_mutex_lock(&queue_lock);
    if (!assembling) { /* ARMCI is finalised: a message nobody received any more */
        pthread_mutex_unlock(&queue_lock);
        return;
    }
    message_t *m = assembling[src];
    if (!m) {
        m = calloc(1, sizeof *m);
        unsigned char *data = malloc(h.total ? (size_t)h.total : 1);
        if (!m || !data) armcia_die("armci_msg_rcv (buffering a message)", ARBOR_ERR_NO_MEMORY);
        *m = (message_t){NULL, src, h.tag, (size_t)h.total, 0, data};
        assembling[src] = m;
    }
    if (h.offset + piece > m->len) armcia_die("armci_msg_rcv (fragment)", ARBOR_ERR_COUNT);
    memcpy(m->data + h.offset, (unsigned char *)payload + sizeof h, piece);
    m->received += piece;
    if (m->received == m->len) {
        assembling[src] = NULL;
        finish(m);
    }
    pthread_mutex_unlock(&queue_lock);
}

int armcia_tagged_init(void)
{
    free(assembling);
    assembling = calloc((size_t)armcia_nproc, sizeof *assembling);
    if (!assembling) return ARBOR_ERR_NO_MEMORY;
    arbor_status_t st = arbor_am_register(ARMCIA_AM_TAGGED, on_fragment, NULL);
    /* A second ARMCI_Init under an arbor that stayed initialised finds its own handler. */
    if (st == ARBOR_ERR_BUSY && handler_registered) st = ARBOR_OK;
    if (st == ARBOR_OK) handler_registered = 1;
    return st;
}

void armcia_tagged_fini(void)
{
    pthread_mutex_lock(&queue_lock);
    while (done_head) {
        message_t *m = done_head;
        done_head = m->next;
        free(m->data);
        free(m);
    }
    done_tail = NULL;
    for (int r = 0; assembling && r < armcia_nproc; r++)
        if (assembling[r]) {
            free(assembling[r]->data);
            free(assembling[r]);
        }
    free(assembling);
    assembling = NULL;
    pthread_mutex_unlock(&queue_lock);
}

void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    if (armcia_check_init("armci_msg_snd")) armcia_die("armci_msg_snd", ARBOR_ERR_NOT_INITIALIZED);
    if (len < 0) armcia_die("armci_msg_snd (length)", ARBOR_ERR_COUNT);
    if (len > 0 && !buffer) armcia_die("armci_msg_snd", ARBOR_ERR_BUFFER);
    if (to < 0 || to >= armcia_nproc) armcia_die("armci_msg_snd (destination)", ARBOR_ERR_RANK);
    size_t room = arbor_am_max_payload() - sizeof(fragment_t);
    unsigned char *frame = malloc(arbor_am_max_payload());
    if (!frame) armcia_die("armci_msg_snd", ARBOR_ERR_NO_MEMORY);
    size_t total = (size_t)len, offset = 0;
    do { /* a zero-byte message is one fragment too */
        size_t piece = total - offset < room ? total - offset : room;
        fragment_t h = {tag, 0, total, offset};
        memcpy(frame, &h, sizeof h);
        if (piece) memcpy(frame + sizeof h, (unsigned char *)buffer + offset, piece);
        arbor_status_t st = arbor_am_request(to, ARMCIA_AM_TAGGED, frame, sizeof h + piece);
        if (st != ARBOR_OK) armcia_die("armci_msg_snd", st);
        offset += piece;
    } while (offset < total);
    free(frame);
}

/* Unlinks and returns the oldest complete message with @p tag from @p from (-1: any). */
static message_t *take(int tag, int from)
{
    pthread_mutex_lock(&queue_lock);
    message_t *prev = NULL, *m = done_head;
    while (m && !(m->tag == tag && (from < 0 || m->src == from))) prev = m, m = m->next;
    if (m) {
        if (prev)
            prev->next = m->next;
        else
            done_head = m->next;
        if (done_tail == m) done_tail = prev;
    }
    pthread_mutex_unlock(&queue_lock);
    return m;
}

static int receive(const char *where, int tag, void *buffer, int buflen, int *msglen, int from)
{
    if (armcia_check_init(where)) armcia_die(where, ARBOR_ERR_NOT_INITIALIZED);
    if (buflen < 0 || (buflen > 0 && !buffer)) armcia_die(where, ARBOR_ERR_BUFFER);
    if (from >= armcia_nproc) armcia_die(where, ARBOR_ERR_RANK);
    armcia_deadline_t deadline = armcia_deadline_start();
    message_t *m;
    for (unsigned idle = 0; !(m = take(tag, from)); idle++) {
        arbor_status_t st = arbor_poll(); /* runs the handlers of fragments aimed here */
        if (st != ARBOR_OK) armcia_die(where, st);
        if (armcia_deadline_passed(&deadline)) armcia_die(where, ARBOR_ERR_TIMEOUT);
        if (idle > 1000) sched_yield(); /* the sender may need this CPU */
    }
    if (m->len > (size_t)buflen) {
        /* MPI_Recv fails on a message longer than the buffer (MPI_ERR_TRUNCATE). */
        armcia_die(where, ARBOR_ERR_COUNT);
    }
    if (m->len) memcpy(buffer, m->data, m->len);
    if (msglen) *msglen = (int)m->len;
    int src = m->src;
    free(m->data);
    free(m);
    return src;
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    if (from < 0) armcia_die("armci_msg_rcv (source)", ARBOR_ERR_RANK);
    (void)receive("armci_msg_rcv", tag, buffer, buflen, msglen, from);
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    return receive("armci_msg_rcvany", tag, buffer, buflen, msglen, -1);
}
