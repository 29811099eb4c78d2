// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {B20_FACTORY, B20Factory, B20Token} from "./B20.sol";
import {LaunchParams} from "./LaunchTypes.sol";
import {LaunchFactory} from "./LaunchFactory.sol";
import {LaunchHook} from "./LaunchHook.sol";

/// @title B20LaunchFactory
/// @notice The current factory in B20 mode (Base): the launch token is a B20 asset created by the B20
/// factory. Its address is `getB20Address(ASSET, this, scopedSalt)` (the derivation is the precompile's),
/// and the init calls cap and mint the launch supply to this factory and give it the metadata role.
contract B20LaunchFactory is LaunchFactory {
    uint8 public constant ASSET = 0;

    error NotErc20Mode();

    constructor(IPoolManager poolManager_, LaunchHook hook_, address feeEscrow_, address owner_)
        LaunchFactory(poolManager_, hook_, feeEscrow_, owner_)
    {}

    /// There is no init-code hash in B20 mode: predict with `B20Factory.getB20Address`.
    function launchTokenBytecodeHash(LaunchParams calldata) external pure override returns (bytes32) {
        revert NotErc20Mode();
    }

    function _predictToken(bytes32 scopedSalt, Launch memory, uint256) internal view override returns (address) {
        return B20Factory(B20_FACTORY).getB20Address(ASSET, address(this), scopedSalt);
    }

    function _deployToken(bytes32 scopedSalt, Launch memory p, uint256 supply) internal override returns (address) {
        // The contract URI and extra metadata are then set by the core, as in ERC-20 mode (one event each).
        bytes[] memory initCalls = new bytes[](3);
        initCalls[0] = abi.encodeCall(B20Token.setSupplyCap, (supply));
        initCalls[1] = abi.encodeCall(B20Token.mint, (address(this), supply));
        initCalls[2] = abi.encodeCall(B20Token.grantRole, (keccak256("METADATA_ROLE"), address(this)));
        return B20Factory(B20_FACTORY).createB20(
            ASSET, scopedSalt, abi.encode(p.name, p.symbol, address(0), uint8(18)), initCalls
        );
    }
}
