/* bench/readpath/readpath.c: what one core spends to bring a local file's bytes to a
 * consumer, per read path (issue 26: the read mode). Reads the whole file in 4 MiB chunks,
 * one at a time, and sums every 8-byte word of each chunk (a stand-in for the decoder reading
 * its input once). Prints wall ms, this thread's CPU ms, the process's CPU ms (io-wq workers
 * included) and page faults.
 *
 *   cc -O2 -o readpath bench/readpath/readpath.c -luring
 *   ./readpath MODE FILE
 *
 * MODE: none (sum one 4 MiB buffer over and over: the consumer alone), buf (io_uring read
 * into one reused buffer), fixed (the same buffer registered, READ_FIXED), direct (O_DIRECT
 * reads), directfixed (O_DIRECT + READ_FIXED), mmap (the file mapped, faults on this
 * thread), mmapseq (+ MADV_SEQUENTIAL), mmappop (MADV_POPULATE_READ per chunk on this
 * thread), mmapring (MADV_POPULATE_READ per chunk through the ring: io-wq), mappop
 * (MAP_POPULATE). Not built by zig build: a measurement, not part of ringscan. */
#define _GNU_SOURCE
#include <liburing.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <stdint.h>
#define CH (4u<<20)
static double tcpu(clockid_t c){struct timespec t;clock_gettime(c,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static uint64_t sum(const uint8_t*p,size_t n){uint64_t s=0;const uint64_t*q=(const void*)p;for(size_t i=0;i<n/8;i++)s+=q[i];return s;}
int main(int argc,char**argv){
  const char*mode=argv[1],*path=argv[2];
  int direct=strstr(mode,"direct")!=NULL, fixed=strstr(mode,"fixed")!=NULL;
  int fd=open(path,O_RDONLY|(direct?O_DIRECT:0));
  struct stat st;fstat(fd,&st);size_t size=st.st_size;
  struct io_uring r;io_uring_queue_init(8,&r,0);
  double w0=tcpu(CLOCK_MONOTONIC),t0=tcpu(CLOCK_THREAD_CPUTIME_ID),p0=tcpu(CLOCK_PROCESS_CPUTIME_ID);
  uint64_t s=0;
  if(strcmp(mode,"none")==0){uint8_t*b=malloc(CH);memset(b,1,CH);for(size_t off=0;off<size;off+=CH){size_t n=size-off<CH?size-off:CH;s+=sum(b,n);}} else if(strncmp(mode,"mmap",4)==0||strcmp(mode,"mappop")==0){
    uint8_t*m=mmap(NULL,size,PROT_READ,MAP_SHARED|(strstr(mode,"mappop")?MAP_POPULATE:0),fd,0);
    if(strstr(mode,"seq"))madvise(m,size,MADV_SEQUENTIAL);
    for(size_t off=0;off<size;off+=CH){size_t n=size-off<CH?size-off:CH;
      if(strstr(mode,"pop")&&!strstr(mode,"ring")&&!strstr(mode,"mappop"))madvise(m+off,(n+4095)&~4095ul,MADV_POPULATE_READ);
      if(strstr(mode,"ring")){struct io_uring_sqe*q=io_uring_get_sqe(&r);io_uring_prep_madvise(q,m+off,(n+4095)&~4095ul,MADV_POPULATE_READ);io_uring_submit(&r);struct io_uring_cqe*c;io_uring_wait_cqe(&r,&c);if(c->res<0)fprintf(stderr,"madv %d\n",c->res);io_uring_cqe_seen(&r,c);}
      s+=sum(m+off,n);}
    munmap(m,size);
  } else {
    uint8_t*b=aligned_alloc(4096,CH);memset(b,0,CH);
    if(fixed){struct iovec v={b,CH};int rc=io_uring_register_buffers(&r,&v,1);if(rc)fprintf(stderr,"reg %d\n",rc);}
    for(size_t off=0;off<size;off+=CH){size_t n=size-off<CH?size-off:CH;size_t rn=direct?((n+4095)&~4095ul):n;
      struct io_uring_sqe*q=io_uring_get_sqe(&r);
      if(fixed)io_uring_prep_read_fixed(q,fd,b,rn,off,0);else io_uring_prep_read(q,fd,b,rn,off);
      io_uring_submit(&r);struct io_uring_cqe*c;io_uring_wait_cqe(&r,&c);if(c->res<(int)n)fprintf(stderr,"short %d\n",c->res);io_uring_cqe_seen(&r,c);
      s+=sum(b,n);}
  }
  double w1=tcpu(CLOCK_MONOTONIC),t1=tcpu(CLOCK_THREAD_CPUTIME_ID),p1=tcpu(CLOCK_PROCESS_CPUTIME_ID);
  struct rusage ru;getrusage(RUSAGE_SELF,&ru);
  printf("%-14s wall %7.1f thread %7.1f proc %7.1f minflt %ld majflt %ld sum %lx\n",mode,w1-w0,t1-t0,p1-p0,ru.ru_minflt,ru.ru_majflt,(unsigned long)s);
  return 0;}
