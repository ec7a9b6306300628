/* The streams between mpiexec and a host's proxy: back over its
 * launcher's stdout (ssh, srun, a -launcher-exec wrapper) the output,
 * process ids and ends of the several ranks it runs, multiplexed; forth
 * over the launcher's stdin signals and rank 0's stdin.
 *
 * Contract
 * - The stream starts with FY_FRAME_MAGIC. Bytes before it are the
 *   launcher's or the remote login's own (a banner, a shell start-up file
 *   that prints): the demultiplexer hands them on as raw output.
 * - Then frames: a type byte, the rank (int32, little-endian), the payload
 *   length (uint32, little-endian, at most FY_FRAME_MAX), the payload.
 *   FY_FRAME_OUT / FY_FRAME_ERR carry a rank's stdout / stderr bytes;
 *   FY_FRAME_PID its process id and FY_FRAME_EXIT its wait status (int32
 *   payloads). A rank's output frames come before its FY_FRAME_EXIT, except
 *   for what a process it left behind writes later. FY_FRAME_ACK: bytes of
 *   the rank's stdin handed to it (or dropped: it closed its stdin), int32.
 * - FY_FRAME_PMI, both ways: bytes of the rank's PMI-1 connection, which
 *   the proxy relays between the rank's socket (its PMI_FD) and mpiexec's
 *   PMI server; from the proxy, an empty one says the rank closed it. A
 *   rank's PMI frames come before its FY_FRAME_EXIT (an abort is known
 *   before the end it causes).
 * - mpiexec to the proxy, the same format: FY_FRAME_SIG, a signal (int32)
 *   to forward to every rank; FY_FRAME_IN, bytes of the rank's stdin, an
 *   empty one its end. mpiexec keeps at most a window of stdin bytes not
 *   yet acknowledged, so the proxy buffers little. The end of this stream
 *   means mpiexec is gone.
 * - fy_frame_put() writes one frame to an fd (all of it; 0 or -1).
 * - fy_frame_feed() takes any chunk of the stream as it arrives (frames
 *   may be split anywhere) and calls raw() for the bytes before the magic
 *   and frame() for each whole frame, in order. It returns -1 with *why
 *   set when the stream is not this protocol (an unknown type, a length
 *   over FY_FRAME_MAX) or frame() returned nonzero; the stream is then
 *   unusable. fy_frame_end() hands on what is left at the end of the
 *   stream (raw bytes that turned out not to start a magic) and says
 *   whether a frame was cut short.
 * - fy_frame_hdr() writes a frame's header into h (FY_FRAME_HDR bytes),
 *   for a writer that queues frames itself. */
#ifndef FY_LAUNCH_FRAME_H
#define FY_LAUNCH_FRAME_H
#include <stddef.h>
#include <stdint.h>
#include "launcher/fy_launch_io.h"

#define FY_FRAME_MAGIC "\0fy-proxy-2\n"
#define FY_FRAME_MAGIC_LEN 12
#define FY_FRAME_HDR 9
#define FY_FRAME_MAX (1u << 20)

enum {
  FY_FRAME_OUT = 'o', FY_FRAME_ERR = 'e', FY_FRAME_PID = 'p', FY_FRAME_EXIT = 'x', FY_FRAME_ACK = 'a',
  FY_FRAME_SIG = 's', FY_FRAME_IN = 'i', FY_FRAME_PMI = 'm'
};

typedef struct fy_frame_rx {
  int synced;      /* the magic was seen */
  fy_buf_t b;      /* what is not handed on yet */
} fy_frame_rx_t;

typedef void (*fy_frame_raw_fn)(void *ctx, const char *p, size_t n);
typedef int (*fy_frame_fn)(void *ctx, int type, int rank, const char *p, size_t n);

void fy_frame_hdr(unsigned char *h, int type, int rank, size_t n);
int fy_frame_put(int fd, int type, int rank, const void *p, size_t n);
int fy_frame_put_int(int fd, int type, int rank, int32_t v);
/* The int32 payload of a FY_FRAME_PID, _EXIT, _ACK or _SIG frame; -1 if n is not 4. */
int fy_frame_int(const char *p, size_t n, int32_t *v);
int fy_frame_feed(fy_frame_rx_t *rx, const char *p, size_t n, fy_frame_raw_fn raw, fy_frame_fn frame, void *ctx,
                  const char **why);
/* 1 when the stream ended inside a frame (the proxy died mid-write). */
int fy_frame_end(fy_frame_rx_t *rx, fy_frame_raw_fn raw, void *ctx);
void fy_frame_rx_free(fy_frame_rx_t *rx);
#endif
