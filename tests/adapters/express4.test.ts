import express from 'express4';
import { runExpressSuite } from './express-cases.js';

runExpressSuite('express 4', express);
