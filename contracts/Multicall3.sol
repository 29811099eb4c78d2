// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

/// @title Multicall3 (aggregate3 only)
/// @notice The devnet's stand-in for Multicall3, placed at its canonical address
/// 0xcA11bde05977b3631167028862bE2a173976CA11 with `anvil_setCode`: `aggregate3` is the one entry point
/// the gateway (through viem's multicall) uses, e.g. to batch `getB20Address` calls while mining a salt.
contract Multicall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    error CallFailed(uint256 index);

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            (bool ok, bytes memory data) = calls[i].target.call(calls[i].callData);
            if (!ok && !calls[i].allowFailure) revert CallFailed(i);
            results[i] = Result(ok, data);
        }
    }
}
