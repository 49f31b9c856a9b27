/* bench/probe/vm_probe.c: whether the machine's two CPUs slow each other: a fixed amount of work on
 * one thread, or on two at once pinned to CPUs 0 and 1, each thread's CPU time printed (ms).
 * Work KIND 0: a dependent 64-bit multiply chain (arithmetic only); 1: memcpy between two 64 MiB
 * buffers 40 times (memory bandwidth, beyond the L3); 2: memcpy then a strided hash, 20 times;
 * 3: eight independent multiply chains (the multiplier's throughput, no memory: slows at two
 * threads only if the two CPUs share a core's units or its clock); 4: memcpy of 16 KiB, L1
 * resident; 5: memcpy of 512 KiB, L2 resident (thirty-sixth session).
 * Not part of the build (bench/RESULTS.md, "Twenty-eighth session: what two vCPUs of this VM
 * give"):
 *     gcc -O2 -pthread -o /tmp/vm_probe bench/probe/vm_probe.c && /tmp/vm_probe KIND 1|2 (KIND 0..5) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static int kind;
static double cpu_ms(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void *run(void *arg){
  int cpu=(int)(intptr_t)arg; cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu,&s); pthread_setaffinity_np(pthread_self(),sizeof s,&s);
  size_t n=64u<<20; char *a=malloc(n),*b=malloc(n); memset(a,1,n); memset(b,2,n);
  double t0=cpu_ms(); volatile uint64_t sink=0;
  if(kind==0){uint64_t x=1; for(long i=0;i<400000000L;i++) x=x*0x9E3779B97F4A7C15ull+i; sink=x;}
  else if(kind==1){for(int r=0;r<40;r++){memcpy(r&1?a:b,r&1?b:a,n);} sink=a[5];}
  else if(kind==3){uint64_t x[8]={1,2,3,4,5,6,7,8}; for(long i=0;i<200000000L;i++) for(int k=0;k<8;k++) x[k]=x[k]*0x9E3779B97F4A7C15ull+i; sink=x[0]^x[7];}
  else if(kind==4||kind==5){size_t m=kind==4?16384:512u<<10; long reps=kind==4?400000L:12000L;
    for(long r=0;r<reps;r++){memcpy(r&1?a:b,r&1?b:a,m); __asm__ volatile(""::"r"(a):"memory");} sink=a[5];}
  else {uint64_t x=1; for(int r=0;r<20;r++){memcpy(r&1?a:b,r&1?b:a,n); for(size_t i=0;i<n;i+=64) x=x*31+(uint8_t)a[i]; } sink=x;}
  double *out=malloc(sizeof(double)); *out=cpu_ms()-t0; free(a); free(b); (void)sink; return out;
}
int main(int argc,char**argv){kind=atoi(argv[1]); int nt=atoi(argv[2]); pthread_t t[2];
  for(int i=0;i<nt;i++) pthread_create(&t[i],0,run,(void*)(intptr_t)i);
  for(int i=0;i<nt;i++){double *r; pthread_join(t[i],(void**)&r); printf("%.1f ",*r);} printf("\n"); return 0;}
