import express from 'express';
import { runExpressSuite } from './express-cases.js';

runExpressSuite('express 5', express);
