// llama.cpp's compute per chunk without llama-server's HTTP and slots: embeds each text of TEXTS (one a line) alone,
// as one compute step, through libllama and the one CPU backend in BACKEND_DIR, and prints wall and CPU time per
// chunk, so the CPU variants (haswell, skylakex, zen4, ...) compare on one CPU (docs/measurements.md, "The remote
// embedding port"). Build against the variants build's tree (LLAMA_SERVER_CPU=variants, its build folder kept):
//   g++ -O2 -std=c++17 -I$SRC/include -I$SRC/ggml/include bench/llamaComputeProbe.cpp -o probe -L$LIBS -lllama \
//     -lggml -lggml-base -Wl,-rpath,$LIBS
//   mkdir be-zen4 && ln -s $LIBS/libggml-cpu-zen4.so be-zen4/
//   OMP_WAIT_POLICY=passive ./probe be-zen4 bge-small-en-v1.5-f32.gguf texts.txt 2
#include "llama.h"
#include "ggml-backend.h"
#include <sys/resource.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>
static double cpu_s() { rusage r; getrusage(RUSAGE_SELF, &r); return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6; }
int main(int argc, char ** argv) {
  ggml_backend_load_all_from_path(argv[1]);
  llama_backend_init();
  auto mp = llama_model_default_params();
  llama_model * model = llama_model_load_from_file(argv[2], mp);
  auto cp = llama_context_default_params();
  cp.n_ctx = 512; cp.n_batch = 512; cp.n_ubatch = 512; cp.n_seq_max = 1; cp.embeddings = true;
  cp.pooling_type = LLAMA_POOLING_TYPE_CLS; cp.n_threads = atoi(argv[4]); cp.n_threads_batch = atoi(argv[4]);
  cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  llama_context * ctx = llama_init_from_model(model, cp);
  const llama_vocab * vocab = llama_model_get_vocab(model);
  std::vector<std::string> texts; std::ifstream in(argv[3]); std::string line;
  while (std::getline(in, line)) texts.push_back(line);
  llama_batch batch = llama_batch_init(512, 0, 1);
  auto embed = [&](const std::string & t, std::vector<float> & out) {
    std::vector<llama_token> tok(600);
    int n = llama_tokenize(vocab, t.c_str(), t.size(), tok.data(), tok.size(), true, false);
    if (n > 512) n = 512;
    batch.n_tokens = n;
    for (int i = 0; i < n; i++) { batch.token[i] = tok[i]; batch.pos[i] = i; batch.n_seq_id[i] = 1; batch.seq_id[i][0] = 0; batch.logits[i] = 1; }
    llama_memory_clear(llama_get_memory(ctx), true);
    if (llama_encode(ctx, batch) != 0) { fprintf(stderr, "encode failed\n"); exit(1); }
    const float * e = llama_get_embeddings_seq(ctx, 0);
    out.assign(e, e + llama_model_n_embd(model));
    return n;
  };
  std::vector<float> v;
  for (int i = 0; i < 4 && i < (int)texts.size(); i++) embed(texts[i], v);  // warm-up
  double c0 = cpu_s(); auto w0 = std::chrono::steady_clock::now(); long pieces = 0;
  for (auto & t : texts) pieces += embed(t, v);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count(), cpu = cpu_s() - c0;
  printf("{\"chunks\": %zu, \"wordPieces\": %ld, \"wallMsPerChunk\": %.1f, \"cpuMsPerChunk\": %.1f}\n", texts.size(), pieces,
         1000 * wall / texts.size(), 1000 * cpu / texts.size());
  return 0;
}
