/* How much system time one file costs, five ways (issue 27/28: one PNG per tile):
   mode 0: temporary name + renameat (batch where O_TMPFILE is missing), 1: O_TMPFILE + linkat via
   /proc/self/fd (batch before 2026-11-27, and on kernels before 6.10), 2: in place (not kill-safe),
   3: O_TMPFILE + linkat AT_EMPTY_PATH (batch on Linux 6.10 and later, which allow it for a file the caller
   opened; before 6.10 it needs CAP_DAC_READ_SEARCH), 4: one write of the file and a tar header to one open
   file (a tar member, --output webdataset).
   make bench-c builds it as bench/out/file-create; bench/file-create-cost.sh runs the modes interleaved.
   ./file-create DIR MODE COUNT   (DIR: a new directory) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
static double sys_s(void){struct rusage r;getrusage(RUSAGE_SELF,&r);return r.ru_stime.tv_sec+r.ru_stime.tv_usec/1e6;}
int main(int argc,char**argv){
  const char*dir=argv[1];int mode=atoi(argv[2]);int n=atoi(argv[3]);
  mkdir(dir,0755);int d=open(dir,O_RDONLY|O_DIRECTORY);
  char buf[6600];memset(buf,7,sizeof buf);char name[64],tmp[80],proc[64];
  int tar=mode==4?openat(d,"all.tar",O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC,0644):-1;
  char member[sizeof buf+512];memset(member,7,sizeof member);
  double t0=now(),s0=sys_s();
  for(int i=0;i<n;i++){
    snprintf(name,64,"t%07d.png",i);
    if(mode==0){snprintf(tmp,80,".%s.all.0.tmp",name);int fd=openat(d,tmp,O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC,0644);write(fd,buf,sizeof buf);close(fd);renameat(d,tmp,d,name);}
    else if(mode==1){int fd=openat(d,".",O_TMPFILE|O_WRONLY|O_CLOEXEC,0644);if(fd<0){perror("tmpfile");return 1;}write(fd,buf,sizeof buf);snprintf(proc,64,"/proc/self/fd/%d",fd);if(linkat(AT_FDCWD,proc,d,name,AT_SYMLINK_FOLLOW)){perror("linkat");return 1;}close(fd);}
    else if(mode==2){int fd=openat(d,name,O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC,0644);write(fd,buf,sizeof buf);close(fd);}
    else if(mode==4){if(write(tar,member,sizeof member)!=(ssize_t)sizeof member){perror("tar");return 1;}}
    else if(mode==3){int fd=openat(d,".",O_TMPFILE|O_WRONLY|O_CLOEXEC,0644);write(fd,buf,sizeof buf);if(linkat(fd,"",d,name,AT_EMPTY_PATH)){perror("linkat empty");return 1;}close(fd);}
  }
  printf("mode %d: %d files %.1f us wall/file %.1f us sys/file\n",mode,n,(now()-t0)/n*1e6,(sys_s()-s0)/n*1e6);
}
