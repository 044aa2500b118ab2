/* The SDK's smallest SPE program: its printf goes through the PPE thread running its context. */
#include <stdio.h>

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    printf("Hello from the SPE, argument %llu\n", argp);
    return 0;
}
