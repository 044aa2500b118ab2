/* A scalar integer loop over arrays in local store (vectorisation off: the loop the SPU would
 * run scalar): N iterations of two word loads, an add and a word store, each scalar access
 * paying the SPU's rotate or read-modify-write. */
#ifndef N
#define N 1000
#endif

int a[N], b[N];

__attribute__((optimize("no-tree-vectorize", "no-unroll-loops"))) int main(void)
{
    for (int i = 1; i < N; i++)
        b[i] = a[i] + b[i - 1];
    return b[N - 1] & 1;
}
