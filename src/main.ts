import module from 'node:module';

// `npm start`. V8 keeps the compiled code of every module on disk (NODE_COMPILE_CACHE, else the
// system's temporary directory) and reuses it at the next start: compiling the server's few
// hundred modules is the largest part of a start-up's CPU. It must be switched on before the
// server's modules are loaded, hence the dynamic import. Where the directory cannot be written,
// Node starts without it.
module.enableCompileCache?.();
await import('./start.js');
