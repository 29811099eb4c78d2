// Set-up file of every test file: its temp dirs go when it ends. Registered first, so with vitest's
// stacked hooks this runs after the file's own afterAll hooks have stopped its gateways and devnets.
import { afterAll } from 'vitest';
import { removeTempDirs } from './tempDir.ts';

afterAll(() => removeTempDirs());
